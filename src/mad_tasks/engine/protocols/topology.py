"""Who reads whom in the debates of seed 001's part-debate baselines: fixed neighbour sets (sparse
communication topology, Li et al. 2024) and the partition of agents into groups (GroupDebate, Liu
et al. 2024). Agents are numbered from 0; every set is returned in ascending order."""

from __future__ import annotations

TOPOLOGIES = ("ring", "star", "full")
PARTITIONS = ("contiguous", "round_robin")


def neighbours(n: int, topology: str, degree: int = 2) -> list[tuple[int, ...]]:  # pragma: no mutate (equivalent: 3 // 2 == 2 // 2)  # fmt: skip
    """The agents each of `n` agents reads, never itself.

    - ring: the `degree` // 2 nearest agents on each side of a circle (Li et al.'s
      neighbour-connected graph is degree 2: density 2 / (n - 1));
    - star: agent 0 reads every other agent, each of which reads agent 0 only;
    - full: every other agent (Du et al.'s fully connected debate).
    """
    if topology == "full":
        return [tuple(j for j in range(n) if j != i) for i in range(n)]
    if topology == "star":
        return [tuple(range(1, n))] + [(0,)] * (n - 1)
    if topology != "ring":
        raise ValueError(f"unknown topology {topology!r}")
    reach = degree // 2
    return [tuple(sorted({(i + k) % n for k in range(-reach, reach + 1)} - {i})) for i in range(n)]  # pragma: no mutate (equivalent: k is symmetric)  # fmt: skip


def partition(n: int, groups: int, rule: str) -> list[tuple[int, ...]]:
    """`n` agents in `groups` groups whose sizes differ by at most one (the larger groups first).

    - contiguous: agents 0, 1, ... fill group 1, then group 2, ...;
    - round_robin: agent i joins group i mod `groups`.
    """
    if not 1 <= groups <= n:
        raise ValueError(f"cannot split {n} agents into {groups} groups")
    if rule == "round_robin":
        return [tuple(range(g, n, groups)) for g in range(groups)]
    if rule != "contiguous":
        raise ValueError(f"unknown partition rule {rule!r}")
    size, larger = divmod(n, groups)
    out, start = [], 0
    for g in range(groups):
        end = start + size + (g < larger)
        out.append(tuple(range(start, end)))
        start = end
    return out
