"""How the bench judges a row: its counts against pan's, and its figures
against the aims. The aims are written here once; spin_vs_lockstep.sh,
storage.sh and throughput.sh import them.

Every time ratio is one of CPU seconds (see time_v.py), against pan -DHC4:
hash compaction, the like-for-like of lockstep's 96-bit fingerprints.
"""

SAME_SPACE_VS_HC4 = 0.8  # GETSET L N=5, --no-symmetry --no-por, counts equal to pan's
REDUCED_VS_HC4 = 0.02  # GETSET L N=5, the default reductions
STEPS_PER_CPU_S = 4e6  # one core
STEPS_MIN_CPU_S = 1.0  # shorter runs are judged not: start-up weighs in them
NAIVE_FOUND_MS = 10  # the naive race at N=5, in search time (below CPU s's 0.01 s)


def counts(pan, other, lockstep):
    """'✓' when `other` searched plain pan's space: the same states, and the same
    transitions, except that on a finished search pan counts one more than lockstep
    (its step into the initial state; on a search stopped by an assertion pan leaves
    out the violating transition, which lockstep counts). Otherwise how many states
    it missed (or found beyond pan's); '—' when a count is missing."""
    if pan.get("states") is None or other.get("states") is None or \
            "TIMEOUT" in (pan.get("result"), other.get("result")):
        return "—"
    extra = 1 if lockstep and pan.get("result") != "violation" else 0
    if pan["states"] == other["states"] and pan["transitions"] == other["transitions"] + extra:
        return "✓"
    d = pan["states"] - other["states"]
    if d == 0:
        return "✗ (transitions differ)"
    word = "state" if abs(d) == 1 else "states"
    return f"{d:,} {word} fewer" if d > 0 else f"{-d:,} {word} more"


def ratio_text(q):
    return f"{q:.3f}" if q < 0.1 else f"{q:.2f}"


def against_hc4(cpu, hc4_cpu, aim, counts_equal=None, search_ratio=None):
    """yes/no, with the figure: CPU s over pan -DHC4's CPU s against `aim`."""
    if cpu is None or not hc4_cpu:
        return "not measured"
    q = cpu / hc4_cpu
    text = f"{ratio_text(q)}× pan -DHC4 ({'≤' if q <= aim else '>'} {aim})"
    if search_ratio is not None:
        text += f"; search s {search_ratio:.3g}×"
    if counts_equal is False:
        return f"no: counts differ from pan's; {text}"
    return f"{'yes' if q <= aim else 'no'}: {text}" + (", counts equal" if counts_equal else "")


def steps_per_cpu_s(rate, cpu):
    """yes/no against STEPS_PER_CPU_S; '—' for a run too short to judge."""
    if rate is None or cpu is None or cpu < STEPS_MIN_CPU_S:
        return f"— (under {STEPS_MIN_CPU_S:g} CPU s)"
    m = f"{rate / 1e6:.2f} M"
    if rate >= STEPS_PER_CPU_S:
        return f"yes: {m}"
    return f"no: {m} ({rate / STEPS_PER_CPU_S:.0%} of {STEPS_PER_CPU_S / 1e6:g} M)"


def naive_found(search_s, result):
    """yes/no: the naive race's violation found within NAIVE_FOUND_MS of search time."""
    if search_s is None or result != "violation":
        return f"no: {result}"
    ms = search_s * 1000
    ok = ms < NAIVE_FOUND_MS
    return f"{'yes' if ok else 'no'}: found in {ms:.1f} ms ({'<' if ok else '≥'} {NAIVE_FOUND_MS} ms)"
