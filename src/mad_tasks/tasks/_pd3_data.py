"""The data of the PD³ tasks (`project_dedup`, `project_dup_pairs`): a local corpus and query file,
or a benchmark in PD³'s shape built at run time from CSFCube, a public graded retrieval set.

**The local format** (a directory holding two JSON Lines files; the shared `csfcube_pd3/hard` and
`csfcube_pd3/random` folders are in it):

- `corpus.jsonl`: `{id, title, text}` per project; `id` a non-empty string without a comma, a
  line break or surrounding whitespace (the solvers' `[RESULT]` line lists ids split at commas),
  `title` a string, `text` a string, not both empty.
- `queries.jsonl`: `{qid, query_id, gold_ids, candidate_ids, grades?, facet?}`: `qid` the sample
  id; `query_id` the query project (in the corpus); `candidate_ids` its candidates (distinct, in
  the corpus, not the query itself), in the fixed order every method sees; `gold_ids` 1 to 5 of
  them, the projects it duplicates most; `grades` (optional) an integer 0 to 3 for every
  candidate (3 a near duplicate, 0 unrelated: CSFCube's scale); `facet` (optional) a string.

**The built benchmark** follows the recipe of the shared folder's `build_pd3_bench.py` (facet-
agnostic, seed 13), written anew here:

- Source: `iesl/CSFCube` at commit 7ffe012 (tag v1.1), **CC BY-NC 4.0** (non-commercial): its 3
  graded query files (`test-pid2anns-csfcube-{background,method,result}.json`) and the 50
  readable annotation files that carry every paper's title and abstract, each downloaded once
  from raw.githubusercontent.com at the commit, checked against its pinned sha256 and cached
  (`~/.cache/mad_tasks/csfcube/<commit>/`). Nothing of it is shipped.
- Papers: each annotation file is a list of blocks between lines of `=`; a block gives
  `paper_id: <id>;`, `TITLE: ...` and, after `ABSTRACT:`, one sentence a line behind its
  discourse label (`method_label: ...`), the label dropped and the sentences joined by spaces.
  A paper in several files keeps its first text (files in name order).
- Grades: a query's grade of a candidate is the highest adjudicated grade over the facets the
  query was annotated for (`facet` lists them, joined by `+`).
- Per query (in id order), one `random.Random(13)` drawing for all queries in turn: gold = up to 5
  candidates of grade >= 2, the grade-3 ones first, ties in a seeded shuffle; negatives = 30 - gold
  candidates of grade <= 1 (if the judged pool has too few, every unjudged paper joins it): `hard`,
  the ones most similar to the query by TF-IDF cosine, `random`, a seeded sample; the 30 shuffled.
- TF-IDF: over every paper of the source (title + abstract), tokens = maximal runs of `[a-z0-9]`
  in the lower-cased text, without the recipe's stop words and one-character tokens; weight
  (1 + ln tf) x (ln((1 + n) / (1 + df)) + 1), each vector scaled to length 1 (scikit-learn's
  `TfidfVectorizer(sublinear_tf=True)` formula, computed here in plain Python).
- Counts: 34 queries x 30 candidates in both variants (gold: 32 queries with 5, one with 3, one
  with 1); 1,037 papers used (hard), 1,019 (random). The result equals the shared files exactly
  (tests/test_tasks_pd3.py compares them when `../shared/data` is at hand).
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from inspect_ai.dataset import Sample

from ..engine.checks import shown
from ._data import cache_dir, download, read_records, read_text

SOURCE_REPO = "iesl/CSFCube"
SOURCE_COMMIT = "7ffe012c1d92c470f185fc086086caf5b8e05ef3"
SOURCE_BASE = f"https://raw.githubusercontent.com/{SOURCE_REPO}/{SOURCE_COMMIT}/"
SOURCE = f"https://github.com/{SOURCE_REPO} @ {SOURCE_COMMIT}"
LICENSE = "CC BY-NC 4.0"

VARIANTS = ("hard", "random")
FACETS = ("background", "method", "result")
BUILD_SEED = 13  # the recipe's
N_CANDIDATES = 30  # PD³'s preliminary retrieval keeps 30
MAX_GOLD = 5  # PD³ returns 5 projects
MAX_GRADE = 3

# the graded query files, then the annotation files (`readable_annotations/<name>-adju.txt`)
GRADE_FILES = {
    "background": "2015cbf965377374e020b0ec133351ec1feb731b9a9c40da0e446ef6eee4fa5e",
    "method": "4d9b48f4b6a7a4fc24a30e0c0e74d1cc53eb4214ec4b855e3cd98e86829323a2",
    "result": "5ed7a63bc20e3deb725f8ec82abfcb1c5d79673befc942509b48effceb3be031",
}
ANNOTATION_FILES = {
    "10010426-method": "882295e6263176e829c72c0a0dceec92ef443c80866e1ffafd95b710b12a5d64",
    "10014168-background": "41178eb38debcb6862d3ee24e37c39b6ebd3cb3b720167049d578265a7c0148f",
    "10052042-result": "4c70e502d8222c39a35ef3bd0fe5941a2472f7ea7fd937beceb2d61d669078f2",
    "102353905-method": "a9d9e50c6fae1c521c7122883da82efa5d01f396b6e4d07755292e4f5b104971",
    "10695055-background": "08d156c492f7a9374f9f7bd3f6748cc7a730a7a337532f4365e8cc30aa8242f0",
    "11310392-method": "b6315b559d40b6ffdec86685b603c3ac0312cfeed6b3cd22ba127f07bdc9b48f",
    "11629674-result": "f4a5080e6290b92b7b26b1c0f081e9729cfcd733b2465a030ba78e5b8337d027",
    "11844559-background": "f734c790c4248cf47f5d747dbab59b8db338cbb6b4d6b021858a5e41ca88ce6f",
    "11844559-result": "e2a63866f77db9cebc5b440f53ef99cc3db6b87f9a14dbf3f4c3553fbbcbf379",
    "1198964-method": "5bf9ea7651f5b2c79c736cff55dcca8288a3ed224779bf07352a00d6c10baa14",
    "1198964-result": "254cd72b39e6fbdc7416fbb29b0aaa85c685d4b7d6a365a629c87644d0d32607",
    "1306065-result": "c98d7f4c56d7df54fd0b33b72fc57895b165b0a7e01eb44fa7bf6c09734a0129",
    "13949438-method": "d5c1d5ba7b874978859e00972945e7e61c7871c1c89f8f4ed4eb839159b86fb6",
    "1587-background": "652f2d5f3866dec2c96c7d5fc1a947d38c367686ea2a98e3afc4e8fb1c019eb2",
    "1587-result": "f62785c4b18fa3015c1b1d4dbc514ba5b25cc4bbbb055bc16b338bda865a255c",
    "174799296-method": "a0333ddc3de5df139ed10452e57a72809958d952dca5d8a834c8c0b7f9d5b5bc",
    "174799296-result": "5d72a8f89678102aee85c1d5fd7bb65bd839ead97779f6d4379f1f6794a681af",
    "1791179-background": "3ab001d90441cd16ef110ce8b2d270eaf2f1ef0a90b4aeb6f3abbe2d24474368",
    "1791179-method": "50a5d0ac37793a59fb62da029347b1412044e74523b5782ad8820e48a80e6600",
    "189897839-background": "68fd65c1203afcd1013ba5bb0cc76b54379f1fb156d36e91b0932d1e8f0d715f",
    "189897839-method": "26da00c8ba5a33d582bc568bb3eeed9472965994cda005d15a774a4bd11d712a",
    "1936997-background": "e68e88a7061031c1192544a1439fca2c4a30cbd792fafa8c9dafeee2e3d31feb",
    "1936997-method": "44d41cf236f2379dbb4f3f16b94a475391292e195f5614b24d900a60d0963c48",
    "2090262-result": "a8f7f4c02d59c0aaf0f44754d934c6922baec188775f2c651a0ded97b9ad5006",
    "2360770-result": "7ae1e8de77cfdd3f73cd28175bb3d34d94bc5939ce1d4c6e4444d66ad78db7a7",
    "2468783-method": "b53b78925724192543bae9bd857518894b748257d57829be613fcc5abfaa45ed",
    "2468783-result": "56598dc7a347c3e2fa6bbcd07141598ddb55faddfa8efada08d2ebfbc69387ce",
    "2865563-result": "277dee687b56b5c767cf11efa33cc8fa08ca0126f1ddb9bfac2c34d67fa0b0c6",
    "3264891-background": "bacb81224cdf9db12e5b9849c46ebba16213ce23dfc3517a883788e5b9ea47e7",
    "3264891-result": "c5cfb5fc8dfe1f132e2ab6cf8782d6993ddb28576c266e78e045d4445e86ac3c",
    "5052952-method": "04e2dabd85519ae4488b50ba81a6282b68b3bb416c5edb36f934d437ac232571",
    "5052952-result": "55c70c073117a712ca16d72807bde40f9b10c8e2fe5b21b8fcddc402da69b3b0",
    "51977123-background": "2dadc162180032b14c95b5f99b31e0f46f2ea20faba7439917bf3ca771ff39ad",
    "52194540-background": "3e3a9eaf17e388498477de1e4cf6189f149b87cd13b978b61d11f7570a15e5b6",
    "52194540-method": "49e040684ecf406f3d94c61db3e4f7450dd5c357bca09e59dc108fc61165abc6",
    "5270848-method": "e5ba4f11e0c4f30f3f8141fdd1630fcb62de715cd2998c4f8236ee86430d3a64",
    "53080736-method": "7e33656fada2fef35fecbb188d29d5dbe442c59844301bfd859e9c14c239071c",
    "53080736-result": "6c4646b372ed5dff5482e36dfe66d3564a58c26010e37cee5c7165bdeca5fcc8",
    "53082542-method": "4dc8c1060d58d06bbb9e9836c6951c5026f6e0784de5991bfddda999231fb9bc",
    "5764728-background": "22abfd3a0ec8f82c8f55d9e406fc87ecd6e8d95440bc62d65f5d14a668c05f0f",
    "6173686-background": "d9a18fc1c890f7e63344875bd52edcae6143f6932ea6d51421285a8724bb1a75",
    "6431039-background": "512afb627016b9c0c67fb91f0d20b9ca649f309864a3db34c98afecd8e3bdbf5",
    "6431039-result": "8cb642f008fa044f5137b69a4f549b13affd232f32bdbfc3c154d1ff8af9e56a",
    "7898033-background": "39b8a5e0131f70580d4f0266b25c63ae863a6d231217747ac11789c3882f8a7c",
    "80628431-method": "f67a92a84df546b8dfaeb5addc08ba4ec9e1f60508a6880ac0aeb624cbea9b84",
    "80628431-result": "301d94f96dadde2983c85111a1577b1dd09693088e3678e507f519e2870504ed",
    "8781666-background": "f04eec4923bcbfff325e7b69c837889ec6028db0e7b21974849a1d76908f9e2a",
    "8781666-result": "5358d8e443ea3119634195118c69b950ac4b2ca7fb09dce6efe6e6bae402658c",
    "929877-background": "4168ced6153e7f484a05e740897100c97813b6e85a30a4603e8d52ec914df343",
    "929877-method": "3d5200c2360515f02342641a1e9644e5c80821f25a522f54c4a4aeb6a3d1e2f2",
}

# the recipe's stop words (needed as they are for its TF-IDF neighbours)
_STOP = """a an the of and or in on for to with by from as at is are was were be been being this
    that these those we our us it its their they which who whom whose what when where how than
    then there here can could may might will would shall should do does did not no nor but if so
    such also into over under about between through during before after above below up down out
    off again further once all any both each few more most other some own same only very s t just
    don now using use used based"""
STOP_WORDS = frozenset(_STOP.split())
_TOKEN = re.compile(r"[a-z0-9]+")  # no nesting: linear; the source is pinned data, not model text


def grade_file(facet: str) -> str:
    return f"test-pid2anns-csfcube-{facet}.json"


def annotation_file(name: str) -> str:
    return f"readable_annotations/{name}-adju.txt"


# -- records -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    """A project (a paper, for CSFCube): its id, title and text."""

    id: str
    title: str
    text: str

    def view(self) -> str:
        """The project as a task input shows it: the title, a blank line, the text."""
        return "\n\n".join(part for part in (self.title, self.text) if part)

    def record(self) -> dict[str, str]:
        return {"id": self.id, "title": self.title, "text": self.text}


@dataclass(frozen=True)
class Query:
    """A query project with its candidates (fixed order), gold ids and, if known, grades."""

    qid: str
    query_id: str
    gold_ids: tuple[str, ...]
    candidate_ids: tuple[str, ...]
    grades: dict[str, int] | None = None
    facet: str | None = None

    def record(self) -> dict[str, Any]:
        """The `queries.jsonl` record (the shared files' key order)."""
        return {
            "qid": self.qid,
            "query_id": self.query_id,
            **({"facet": self.facet} if self.facet is not None else {}),
            "gold_ids": list(self.gold_ids),
            "candidate_ids": list(self.candidate_ids),
            **({"grades": dict(self.grades)} if self.grades is not None else {}),
        }


@dataclass(frozen=True)
class Bench:
    """Queries and the projects they name (`corpus`, by id)."""

    corpus: dict[str, Doc]
    queries: tuple[Query, ...]

    def gold_sizes(self) -> dict[str, int]:
        """How many queries have each number of gold ids (the number as text: a JSON key)."""
        sizes = sorted(len(q.gold_ids) for q in self.queries)
        return {str(n): sizes.count(n) for n in sorted(set(sizes), reverse=True)}


@dataclass(frozen=True)
class Loaded:
    """A task's data with where it came from, as the task metadata records it."""

    bench: Bench
    source: str
    variant: str | None  # None: a local directory (the directory is one variant)
    license: str | None  # the built benchmark's; a local directory's is its own

    def metadata(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "license": self.license,
            "variant": self.variant,
            "queries": len(self.bench.queries),
            "documents": len(self.bench.corpus),
            "candidates": sorted({len(q.candidate_ids) for q in self.bench.queries}),
            "gold_sizes": self.bench.gold_sizes(),
        }


def load(data_path: str | None, variant: str | None) -> Loaded:
    """A local directory (see the module docstring), else the built benchmark's `variant` (null:
    hard). The task has checked both options."""
    if data_path is not None:
        return Loaded(read_bench(data_path), data_path, None, None)
    variant = variant or "hard"
    docs, grades = read_source(fetch_source())
    return Loaded(build(docs, grades, variant), SOURCE, variant, LICENSE)


# -- the local format --------------------------------------------------------------------------


def _is_id(value: object) -> TypeGuard[str]:
    """A non-empty string without a comma, a newline or surrounding whitespace: the solvers'
    `[RESULT] id, id, ...` line splits at commas, so such an id would not read back whole."""
    return (
        isinstance(value, str)
        and value == value.strip()
        and "," not in value
        and value.splitlines() == [value]  # neither empty nor broken over lines
    )


ID_RULE = "a non-empty string without a comma, a line break or surrounding whitespace"


def _id(record: dict[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not _is_id(value):
        raise ValueError(f"{where}: '{key}' must be {ID_RULE}, got {shown(value)}")
    return value


def _ids(record: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = record.get(key)
    ok = isinstance(value, list) and all(_is_id(x) for x in value)
    if not ok or not value or len(set(value)) != len(value):
        raise ValueError(
            f"{where}: '{key}' must be a list of distinct ids, each {ID_RULE}, got {shown(value)}"
        )
    return tuple(value)


def read_corpus(path: Path) -> dict[str, Doc]:
    corpus: dict[str, Doc] = {}
    for n, record in enumerate(read_records(path), 1):
        where = f"{path}: record {n}"
        id_ = _id(record, "id", where)
        title, text = record.get("title"), record.get("text")
        if not isinstance(title, str) or not isinstance(text, str) or not (title + text).strip():
            raise ValueError(f"{where}: 'title' and 'text' must be strings, not both empty")
        if id_ in corpus:
            raise ValueError(f"{where}: id {id_!r} is already taken by an earlier record")
        corpus[id_] = Doc(id_, title.strip(), text.strip())
    return corpus


def read_query(record: dict[str, Any], corpus: dict[str, Doc], where: str) -> Query:
    qid = _id(record, "qid", where)
    query_id = _id(record, "query_id", where)
    candidates = _ids(record, "candidate_ids", where)
    gold = _ids(record, "gold_ids", where)
    unknown = [x for x in (query_id, *candidates) if x not in corpus]
    if unknown:
        raise ValueError(f"{where}: ids not in the corpus: {shown(unknown)}")
    if query_id in candidates:
        raise ValueError(f"{where}: the query {query_id!r} is among its own candidates")
    if len(gold) > MAX_GOLD or not set(gold) <= set(candidates):
        raise ValueError(
            f"{where}: 'gold_ids' must be 1 to {MAX_GOLD} of the candidates, got {shown(gold)}"
        )
    grades = record.get("grades")
    if grades is not None:
        ok = (
            isinstance(grades, dict)
            and set(grades) == set(candidates)
            and all(type(g) is int and 0 <= g <= MAX_GRADE for g in grades.values())
        )
        if not ok:
            raise ValueError(
                f"{where}: 'grades' must give every candidate (and nothing else) an integer "
                f"from 0 to {MAX_GRADE}, got {shown(grades)}"
            )
    facet = record.get("facet")
    if facet is not None and not isinstance(facet, str):
        raise ValueError(f"{where}: 'facet' must be a string, got {shown(facet)}")
    return Query(qid, query_id, gold, candidates, grades, facet)


def read_bench(directory: str | Path) -> Bench:
    """`corpus.jsonl` and `queries.jsonl` of a directory; a fault names the file and record."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(
            f"data_path {str(directory)!r} is not a directory (one holding corpus.jsonl and "
            "queries.jsonl)"
        )
    corpus = read_corpus(directory / "corpus.jsonl")
    path = directory / "queries.jsonl"
    queries: dict[str, Query] = {}
    for n, record in enumerate(read_records(path), 1):
        query = read_query(record, corpus, f"{path}: record {n}")
        if query.qid in queries:
            raise ValueError(f"{path}: record {n}: qid {query.qid!r} is already taken")
        queries[query.qid] = query
    if not queries:
        raise ValueError(f"{path}: no query")
    return Bench(corpus, tuple(queries.values()))


# -- the CSFCube source ------------------------------------------------------------------------


def fetch_source() -> Path:
    """The pinned source files in the cache (downloaded once, each checked against its sha256);
    returns their directory, laid out as the repository."""
    name = f"csfcube/{SOURCE_COMMIT}"
    files = {grade_file(f): sha for f, sha in GRADE_FILES.items()}
    files |= {annotation_file(n): sha for n, sha in ANNOTATION_FILES.items()}
    for relative, sha256 in files.items():
        download(SOURCE_BASE + relative, f"{name}/{relative}", sha256)
    return cache_dir() / name


def _is_rule(line: str) -> bool:
    return len(line) >= 10 and not line.strip("=")


def _unlabelled(line: str) -> str:
    """A sentence without its discourse label (`method_label: We ...` -> `We ...`)."""
    line = line.strip()
    label, colon, rest = line.partition(":")
    word = label.replace("_", "")
    if colon and label.endswith("_label") and len(label) > 6 and (word.isalnum() or not word):
        return rest.strip()
    return line


def parse_annotations(text: str, where: str) -> list[Doc]:
    """The papers of a readable annotation file, in file order (format: the module docstring)."""
    blocks: list[list[str]] = [[]]
    for line in text.split("\n"):  # not splitlines: a \u2028 inside a sentence stays in it
        if _is_rule(line):
            blocks.append([])
        else:
            blocks[-1].append(line)
    docs = []
    for n, lines in enumerate((b for b in blocks if any(x.strip() for x in b)), 1):
        joined = "\n".join(lines)
        _, found, rest = joined.partition("paper_id: ")
        pid = rest.split(";", 1)[0] if found and ";" in rest else ""
        title = next((x[len("TITLE: ") :].strip() for x in lines if x.startswith("TITLE: ")), None)
        _, found, abstract = joined.partition("ABSTRACT:")
        if not pid or pid.split() != [pid] or title is None or not found:
            raise ValueError(f"{where}: paper {n} lacks 'paper_id: <id>;', 'TITLE:' or 'ABSTRACT:'")
        sentences = (_unlabelled(x) for x in abstract.strip().split("\n"))
        docs.append(Doc(pid, title, " ".join(s for s in sentences if s)))
    return docs


def read_grades(text: str, where: str) -> dict[str, dict[str, int]]:
    """A graded query file: {query id: {candidate id: adjudicated grade}}, in file order."""
    data = json.loads(text)
    grades: dict[str, dict[str, int]] = {}
    for qid, entry in data.items() if isinstance(data, dict) else ():
        cands, relevance = entry.get("cands"), entry.get("relevance_adju")
        if not isinstance(cands, list) or not isinstance(relevance, list):
            raise ValueError(f"{where}: query {qid} has no 'cands' and 'relevance_adju' lists")
        grades[qid] = {str(c): int(g) for c, g in zip(cands, relevance)}
    return grades


def read_source(directory: Path) -> tuple[dict[str, Doc], dict[str, tuple[str, dict[str, int]]]]:
    """Every paper of the annotation files (the first text of a paper kept, files in name order),
    and per query its facets (joined by `+`) and its grade of each candidate: the highest over its
    facets, candidates in the order first graded (facets in FACETS order)."""
    docs: dict[str, Doc] = {}
    for path in sorted((directory / "readable_annotations").glob("*-adju.txt")):
        for doc in parse_annotations(read_text(path), str(path)):
            docs.setdefault(doc.id, doc)
    facets: dict[str, list[str]] = {}
    merged: dict[str, dict[str, int]] = {}
    for facet in FACETS:
        path = directory / grade_file(facet)
        for qid, graded in read_grades(read_text(path), str(path)).items():
            facets.setdefault(qid, []).append(facet)
            best = merged.setdefault(qid, {})
            for c, g in graded.items():
                best[c] = max(g, best.get(c, -1))
    return docs, {q: ("+".join(sorted(facets[q])), merged[q]) for q in merged}


def tokens(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text.lower()) if len(w) > 1 and w not in STOP_WORDS]


def tfidf(docs: dict[str, Doc]) -> dict[str, dict[str, float]]:
    """Each paper's unit-length TF-IDF vector (formula: the module docstring), terms sorted."""
    counts: dict[str, dict[str, int]] = {}
    df: dict[str, int] = {}
    for id_ in sorted(docs):
        terms: dict[str, int] = {}
        for t in tokens(docs[id_].title + " " + docs[id_].text):
            terms[t] = terms.get(t, 0) + 1
        counts[id_] = terms
        for t in terms:
            df[t] = df.get(t, 0) + 1
    n = len(docs)
    idf = {t: math.log((n + 1) / (d + 1)) + 1 for t, d in df.items()}
    vectors = {}
    for id_, terms in counts.items():
        weights = {t: (math.log(c) + 1) * idf[t] for t, c in sorted(terms.items())}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        vectors[id_] = {t: w / norm for t, w in weights.items()} if norm else weights
    return vectors


def similarity(a: dict[str, float], b: dict[str, float]) -> float:
    return sum(w * a[t] for t, w in b.items() if t in a)


def build(
    docs: dict[str, Doc],
    grades: dict[str, tuple[str, dict[str, int]]],
    variant: str,
    seed: int = BUILD_SEED,
    n_candidates: int = N_CANDIDATES,
) -> Bench:
    """The benchmark's `variant` (hard or random negatives) from the source's papers and graded
    queries (`read_source`): the recipe of the module docstring."""
    rng = random.Random(seed)
    vectors = tfidf(docs)
    queries: list[Query] = []
    for qid in sorted(grades):
        facet, graded = grades[qid]
        if qid not in docs:
            continue
        gold_pool = [c for c, g in graded.items() if g >= 2 and c in docs and c != qid]
        if not gold_pool:
            continue
        rng.shuffle(gold_pool)
        gold_pool.sort(key=lambda c: -graded[c])  # stable: the shuffle orders equal grades
        gold = gold_pool[:MAX_GOLD]
        pool = [c for c, g in graded.items() if g <= 1 and c in docs and c != qid]
        wanted = n_candidates - len(gold)
        if len(pool) < wanted:
            pool += [c for c in sorted(docs) if c not in graded and c != qid]
        if len(pool) < wanted:
            raise ValueError(f"query {qid}: only {len(pool)} negatives for {wanted} places")
        if variant == "hard":
            sims = [similarity(vectors[qid], vectors[c]) for c in pool]
            negatives = [pool[i] for i in sorted(range(len(pool)), key=lambda i: -sims[i])][:wanted]
        else:
            negatives = rng.sample(pool, wanted)
        candidates = gold + negatives
        rng.shuffle(candidates)
        queries.append(
            Query(
                qid,
                qid,
                tuple(gold),
                tuple(candidates),
                {c: graded.get(c, 0) for c in candidates},
                facet,
            )
        )
    used = {c for q in queries for c in (q.query_id, *q.candidate_ids)}
    return Bench({i: docs[i] for i in sorted(used)}, tuple(queries))


# -- Task 1 samples ----------------------------------------------------------------------------


def dedup_sample(bench: Bench, query: Query) -> Sample:
    """A `project_dedup` sample: the query's view as input, its gold ids as target; the metadata
    holds the query and its candidates (in their fixed order) so that any solver works from the
    sample alone."""
    doc = bench.corpus[query.query_id]
    metadata: dict[str, Any] = {"query_id": query.query_id, "query": doc.record()}
    if query.facet is not None:
        metadata["facet"] = query.facet
    metadata["candidates"] = [bench.corpus[c].record() for c in query.candidate_ids]
    if query.grades is not None:
        metadata["grades"] = dict(query.grades)
    return Sample(id=query.qid, input=doc.view(), target=list(query.gold_ids), metadata=metadata)


# -- Task 2 pairs (design: the docstring of project_dup_pairs.py) ------------------------------

MAX_PAIRS = 1000  # a pair costs 2 x (conclusion + samples) calls; the paper drew 100


@dataclass(frozen=True)
class Pair:
    """Two queries, `a` and `b` (their qids), their duplication levels and the 3 expert votes."""

    a: str
    b: str
    levels: tuple[int, int]
    votes: tuple[int, int]

    @property
    def target(self) -> str:
        return "A" if self.votes[0] > self.votes[1] else "B"


def level(query: Query) -> int:
    """How duplicated a query is: the sum of the grades of its gold references (0 to 15)."""
    if query.grades is None:
        raise ValueError(f"query {query.qid} has no grades")
    return sum(query.grades[g] for g in query.gold_ids)


def votes(level_a: int, level_b: int) -> tuple[int, int]:
    """3 simulated expert votes for the more duplicated side: unanimous when the levels differ by
    2 or more, 2:1 when by 1 (equal levels make no pair)."""
    gap = level_a - level_b
    if gap == 0:
        raise ValueError("a pair's levels must differ")
    majority = (3, 0) if abs(gap) >= 2 else (2, 1)
    return majority if gap > 0 else (majority[1], majority[0])


def eligible(queries: Sequence[Query]) -> list[tuple[Query, Query]]:
    """Every pair of queries (in file order, first before second) whose levels differ."""
    return [(x, y) for i, x in enumerate(queries) for y in queries[i + 1 :] if level(x) != level(y)]


def draw_pairs(queries: Sequence[Query], n: int, seed: int) -> list[Pair]:
    """`n` distinct pairs drawn uniformly from `eligible`, each side put first with probability
    1/2; one `random.Random(seed)` for both (raises ValueError when fewer than `n` are eligible)."""
    rng = random.Random(seed)
    drawn = rng.sample(eligible(queries), n)
    pairs = []
    for x, y in drawn:
        a, b = (y, x) if rng.random() < 0.5 else (x, y)
        levels = level(a), level(b)
        pairs.append(Pair(a.qid, b.qid, levels, votes(*levels)))
    return pairs


PAIR_PROMPT = (
    "Each of two projects, A and B, was checked against a database of earlier projects and came "
    "back with the references that overlap it most. Which project do its references duplicate "
    "more: project A ({a}) or project B ({b})?"
)


def _side(bench: Bench, query: Query, level_: int, retrieval: str) -> dict[str, Any]:
    """A pair's side: under Human Retrieval its references (its gold) with their grades, under
    Method Retrieval its candidates with every grade, for the method to retrieve its own."""
    assert query.grades is not None  # `level` has checked
    shown = query.gold_ids if retrieval == "human" else query.candidate_ids
    return {
        "query_id": query.query_id,
        **({"facet": query.facet} if query.facet is not None else {}),
        "query": bench.corpus[query.query_id].record(),
        ("refs" if retrieval == "human" else "candidates"): [
            bench.corpus[c].record() for c in shown
        ],
        "grades": {c: query.grades[c] for c in shown if c in query.grades},
        "level": level_,
    }


def pair_sample(bench: Bench, pair: Pair, retrieval: str = "human") -> Sample:
    """A `project_dup_pairs` sample: the instruction naming both projects by title, the more
    duplicated side as target; per side the query, its references (its gold, in order; under
    Method Retrieval its candidates) with their grades and its level; the votes [A, B]."""
    by_qid = {q.qid: q for q in bench.queries}
    a, b = by_qid[pair.a], by_qid[pair.b]
    titles = (f'"{bench.corpus[q.query_id].title or q.query_id}"' for q in (a, b))
    return Sample(
        id=f"{pair.a}-vs-{pair.b}",
        input=PAIR_PROMPT.format(a=next(titles), b=next(titles)),
        target=pair.target,
        metadata={
            "a": _side(bench, a, pair.levels[0], retrieval),
            "b": _side(bench, b, pair.levels[1], retrieval),
            "votes": list(pair.votes),
        },
    )


def graded(queries: Iterable[Query], where: str) -> None:
    """Refuse data without grades: the pairs' levels are computed from them."""
    missing = [q.qid for q in queries if q.grades is None]
    if missing:
        raise ValueError(
            f"{where}: project_dup_pairs needs 'grades' for every query; queries without: "
            f"{len(missing)} (first: {missing[0]!r})"
        )
