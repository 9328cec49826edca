#!/usr/bin/env bash
# Counts the floating-point operations one call of a dynamics algorithm executes, from the
# instructions it runs: valgrind's callgrind counts each instruction's executions inside the named
# function (callees included), objdump names the instructions, and each arithmetic one counts its
# lanes (an FMA two per lane; additions, subtractions, multiplications, divisions and square roots
# one per lane; moves, shuffles, sign flips and comparisons none). Counts, not times: the same on a
# loaded machine. Needs valgrind and build/tests/grapple_bench (a Release build).
#   scripts/flops.sh BENCHMARK FUNCTION
#   scripts/flops.sh MDA_ForwardDynamics 'grapple::core::forwardDynamics('
#   scripts/flops.sh 'Chain_MassMatrix/128' 'grapple::core::massMatrix('
# Prints the calls, the instructions and flops per call, and the functions that do the flops.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -ne 2 ]; then
  echo "usage: scripts/flops.sh BENCHMARK_NAME FUNCTION_NAME_PREFIX" >&2
  exit 2
fi
bench=build/tests/grapple_bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
  --toggle-collect="$2*" --callgrind-out-file="$work/cg.out" \
  "$bench" --benchmark_filter="^$1\$" --benchmark_min_time=0.05 >/dev/null 2>&1
objdump -d --no-show-raw-insn "$bench" >"$work/dis"
python3 - "$work/cg.out" "$work/dis" "$2" <<'PY'
import collections, re, sys
cg, dis_path, function = sys.argv[1:]
dis = {}
for line in open(dis_path):
    m = re.match(r'\s+([0-9a-f]+):\s+(\S+)\s*(.*)', line)
    if m:
        dis[int(m.group(1), 16)] = (m.group(2), m.group(3))

def flops(mnemonic, operands):
    lanes = 8 if 'zmm' in operands else 4 if 'ymm' in operands else 2
    if re.fullmatch(r'v?f(n?)m(add|sub)(sub|add)?(132|213|231)?sd', mnemonic):
        return 2
    if re.fullmatch(r'v?f(n?)m(add|sub)(sub|add)?(132|213|231)?pd', mnemonic):
        return 2 * lanes
    if re.fullmatch(r'v?(add|sub|mul|div|sqrt)sd', mnemonic):
        return 1
    if re.fullmatch(r'v?(add|sub|mul|div|sqrt|hadd|addsub)pd', mnemonic):
        return lanes
    return 0

obj = fn = None
after_call = False
calls = 0
instructions = total = 0
by_function = collections.Counter()
for line in open(cg):
    line = line.rstrip('\n')
    if line.startswith('ob='):
        obj = line[3:]
    elif line.startswith('fn='):
        fn = line[3:]
    elif line.startswith('cfn='):
        callee = line[4:]
    elif line.startswith('calls='):
        after_call = True  # the next line is the call's inclusive cost
        if callee.startswith(function) and not fn.startswith(function):
            calls += int(line.split('=')[1].split()[0])
    else:
        m = re.fullmatch(r'(0x[0-9a-f]+) \d+ (\d+)', line)
        if not m:
            continue
        if after_call:
            after_call = False
            continue
        address, count = int(m.group(1), 16), int(m.group(2))
        instructions += count
        if obj and obj.endswith('grapple_bench') and address in dis:
            f = flops(*dis[address]) * count
            total += f
            by_function[fn.replace('(anonymous namespace)', '{anonymous}').split('(')[0]] += f
if calls == 0:
    sys.exit(f'flops.sh: no call of {function} was recorded')
print(f'{calls} calls: {instructions / calls:.0f} instructions and {total / calls:.0f} flops per call')
for name, f in by_function.most_common(8):
    print(f'  {f / calls:8.0f}  {name}')
PY
