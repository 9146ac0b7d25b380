# Sourced by the bench scripts: a shipped scenario with SPIN's parameters.
#
#   scenario_set SRC DST HORIZON ROUNDS
#
# Writes to DST a copy of the scenario SRC whose clock stops at HORIZON
# (starting at 0 unless SRC says otherwise) and whose lock is taken ROUNDS
# times: the MAXT and ROUNDS of shared/spin/run.sh.
scenario_set() {
  python3 - "$1" "$2" "$3" "$4" <<'PY'
import json, sys
src, dst, horizon, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = json.load(open(src))
d.setdefault("clock", {})["horizon"] = horizon
d["clock"].setdefault("start", 0)
d.setdefault("lock", {})["rounds"] = rounds
json.dump(d, open(dst, "w"), indent=1)
PY
}
