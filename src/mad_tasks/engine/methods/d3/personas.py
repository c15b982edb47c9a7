"""D3's jurors: the persona pool its authors published, and the five of it their code seats.

The roles and their domains below are data from the authors' repository: the 50 entries of
`utils/personas.py` in abirharrasse/D3-Judge at commit 129491b (2026-01-21), in their order, by
their role names and domains. That repository is under the MIT licence, whose notice follows:

    MIT License

    Copyright (c) 2024 Abir HARRASSE

    Permission is hereby granted, free of charge, to any person obtaining a copy of this software
    and associated documentation files (the "Software"), to deal in the Software without
    restriction, including without limitation the rights to use, copy, modify, merge, publish,
    distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
    Software is furnished to do so, subject to the following conditions:

    The above copyright notice and this permission notice shall be included in all copies or
    substantial portions of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
    BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
    NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
    DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
    OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.

Each description (what a juror's prompt says it is) is ours: the authors' identity strings and
focus lines are not copied. How the pool is used follows the paper and the code:
- the jury the code seats (MORE and SAMRE alike) is five fixed identities cycled juror by juror,
  the same five the paper prints as its jurors (App. D.3) and calls its curated set (App. G.2);
  the code never imports the pool. `CURATED` names them, in the code's order.
- the paper draws random 5-persona subsets of the pool for its robustness table (Table 4,
  App. G.1); the authors' sampler seeds Python's global `random` and samples the pool, so a
  `random.Random(seed).sample(POOL, 5)` here draws the same roles for the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCE = "abirharrasse/D3-Judge@129491b3b7f972a003306fe1453715b94d1a0c43 utils/personas.py (MIT)"


@dataclass(frozen=True)
class Persona:
    name: str  # the authors' role name
    domain: str  # the authors' domain
    description: str  # ours: what the juror is told it is


POOL = (
    # ethics
    Persona("Ethics Professor", "ethics", "a professor of ethics who has retired from teaching"),
    Persona(
        "Bioethicist", "ethics", "a researcher in bioethics who works at a university hospital"
    ),
    Persona(
        "Philosophy Professor", "ethics", "a university professor who teaches moral philosophy"
    ),
    Persona("Ethics Consultant", "ethics", "a consultant who advises large corporations on ethics"),
    Persona(
        "Religious Ethics Scholar",
        "ethics",
        "a scholar who compares the ethical teachings of the world's religions",
    ),
    # business
    Persona("Business Owner", "business", "the owner of a business, in middle age"),
    Persona(
        "Venture Capitalist",
        "business",
        "a partner at a venture capital firm that backs technology start-ups",
    ),
    Persona("Economist", "business", "an economist on the staff of a central bank"),
    Persona("Operations Manager", "business", "a manager who runs the operations of a factory"),
    Persona(
        "Sustainability Director",
        "business",
        "the executive in charge of sustainability at a multinational company",
    ),
    Persona(
        "Small Business Advocate", "business", "a consultant who helps small businesses develop"
    ),
    # technology
    Persona("Tech Entrepreneur", "technology", "a founder of technology companies, trained in AI"),
    Persona("AI Researcher", "technology", "a senior scientist at a leading AI laboratory"),
    Persona(
        "Cybersecurity Expert",
        "technology",
        "the executive responsible for an organisation's information security",
    ),
    Persona("UX Designer", "technology", "a senior designer of user experiences"),
    Persona("Data Scientist", "technology", "the head data scientist of a healthcare company"),
    Persona("Software Architect", "technology", "a principal architect of software systems"),
    Persona("Tech Policy Analyst", "technology", "an analyst of technology policy at a think tank"),
    # social work and advocacy
    Persona(
        "Social Worker",
        "social_work",
        "a social worker whose speciality is developing communities",
    ),
    Persona("Environmental Activist", "social_work", "a young campaigner for the environment"),
    Persona(
        "Child Welfare Specialist",
        "social_work",
        "a specialist in child welfare with two decades in the field",
    ),
    Persona("Mental Health Counselor", "social_work", "a licensed counsellor in mental health"),
    Persona(
        "Disability Rights Advocate",
        "social_work",
        "a campaigner for disability rights who advises on accessibility",
    ),
    Persona(
        "Housing Policy Expert",
        "social_work",
        "a researcher of housing policy who campaigns for homeless people",
    ),
    # law and compliance
    Persona("Corporate Lawyer", "law", "a partner in a firm of corporate lawyers"),
    Persona(
        "Privacy Attorney",
        "law",
        "a lawyer who practises data-privacy law, such as the GDPR and the CCPA",
    ),
    Persona("Constitutional Scholar", "law", "a professor who teaches constitutional law"),
    Persona(
        "Compliance Officer",
        "compliance",
        "the executive in charge of compliance at a financial institution",
    ),
    Persona("Human Rights Lawyer", "law", "a lawyer for human rights at an international NGO"),
    Persona(
        "Intellectual Property Expert", "law", "a lawyer who practises intellectual property law"
    ),
    # medicine and health
    Persona(
        "Emergency Physician",
        "medicine",
        "a doctor in an emergency department, experienced with trauma",
    ),
    Persona("Public Health Expert", "medicine", "an epidemiologist working in public health"),
    Persona(
        "Geriatric Specialist", "medicine", "a doctor who specialises in the care of old people"
    ),
    Persona(
        "Pediatrician",
        "medicine",
        "a doctor for children who is an expert in how they develop",
    ),
    Persona("Nurse Practitioner", "medicine", "an advanced-practice nurse in primary care"),
    Persona(
        "Medical Researcher",
        "medicine",
        "the director of clinical research at a teaching hospital",
    ),
    # education
    Persona("K-12 Teacher", "education", "a high-school teacher with a quarter-century in class"),
    Persona("University Dean", "education", "an associate dean of a research university"),
    Persona(
        "Special Education Expert",
        "education",
        "the coordinator of a school's special-education provision",
    ),
    Persona("EdTech Innovator", "education", "a researcher of technology for learning"),
    Persona(
        "Early Childhood Educator",
        "education",
        "a specialist in teaching the youngest children",
    ),
    # risk analysis and safety
    Persona("Risk Analyst", "risk", "a senior analyst of risk at an insurer"),
    Persona("Safety Engineer", "risk", "an engineer responsible for safety in aerospace"),
    Persona("Crisis Manager", "risk", "a consultant who helps organisations through crises"),
    Persona(
        "Quality Assurance Director",
        "risk",
        "the head of quality assurance at a manufacturer",
    ),
    Persona(
        "Environmental Risk Assessor",
        "risk",
        "a specialist who assesses risks to the environment",
    ),
    # journalism and communication
    Persona(
        "Investigative Journalist",
        "journalism",
        "an investigative reporter who has won a Pulitzer Prize",
    ),
    Persona("Science Communicator", "journalism", "a writer who explains science to the public"),
    Persona(
        "Media Ethics Scholar",
        "journalism",
        "a former newspaper editor who now teaches the ethics of the media",
    ),
    Persona(
        "Crisis Communications Expert",
        "journalism",
        "the head of communications when an organisation is in crisis",
    ),
)

# the five the authors' code seats, cycled juror by juror (its `jury_identities`), in its order
CURATED = (
    "Ethics Professor",
    "Environmental Activist",
    "Business Owner",
    "Social Worker",
    "Tech Entrepreneur",
)


def named(name: str) -> Persona:
    """The pool's persona of that role name."""
    return next(p for p in POOL if p.name == name)
