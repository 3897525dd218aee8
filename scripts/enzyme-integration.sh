#!/usr/bin/env bash
# Drop-in compatibility yardstick: run Enzyme-style lit integration tests
# (e.g. a checkout of Enzyme's enzyme/test/Integration) with enz-rs in place
# of Enzyme's opt/clang plugin.  Not part of the test suite.
#
# Usage: scripts/enzyme-integration.sh <Integration-dir> [subdir...]
#   <Integration-dir>  directory holding the tests (and test_utils.h)
#   subdir...          subfolders to run (default: ReverseMode ForwardMode
#                      BatchMode where present, else the directory itself)
# Environment:
#   ENZ_RS   enz-rs binary (default: <repo>/target/debug/enz-rs)
#   JOBS     parallel RUN lines (default 2, capped at 2)
#   TIMEOUT  seconds per RUN line (default 60)
#   CLANG    clang (default clang-22); FILECHECK (default FileCheck of LLVM 22)
#   INCLUDE  extra include dirs, ':'-separated (default: <dir>/../../include,
#            i.e. enzyme/include for <enzyme>/test/Integration)
#   OUTDIR   where per-RUN logs go (default: a fresh mktemp dir; kept)
#   FILTER   only test files whose path matches this regex
#   MPI      openmpi (default) or mpich: whose mpi.h the tests compile with
#            and whose library a module calling MPI_* links (Debian's
#            paths, from scripts/setup.sh)
#   ENZ_PLUGIN  libenz_plugin.so: %loadClangEnzyme lines load it with
#            -fplugin (source attributes, differentiation in
#            clang's pipeline), as Enzyme's clang plugin would run
#
# Each RUN line is translated: %clang/%clang++ -> clang-22 (-I test dir,
# Integration dir, enzyme include dir); Enzyme plugin flags are dropped; the
# `%opt ... <enzyme flags>` stage (or, for %loadClangEnzyme tests, a stage
# inserted after clang) becomes `enz-rs in.ll -o out.bc`; `%lli -` becomes
# `clang-22 out.bc -lm -lstdc++ -o exe && ./exe`; %llvmver is 22, so lit-style
# `if [ %llvmver -ge N ]` guards evaluate as for LLVM 22.  Lines run under
# bash with pipefail (as lit does).
set -u
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2
fi
ROOT="$(cd "$1" && pwd)"; shift
ENZ_RS="${ENZ_RS:-$REPO/target/debug/enz-rs}"
JOBS="${JOBS:-2}"; [ "$JOBS" -gt 2 ] 2>/dev/null && JOBS=2; [ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
TIMEOUT="${TIMEOUT:-60}"
CLANG="${CLANG:-clang-22}"
if [ -z "${FILECHECK:-}" ]; then
  if [ -x /usr/lib/llvm-22/bin/FileCheck ]; then FILECHECK=/usr/lib/llvm-22/bin/FileCheck
  else FILECHECK="$(command -v FileCheck-22 || command -v FileCheck || echo FileCheck)"; fi
fi
INCLUDE="${INCLUDE:-$(cd "$ROOT/../../include" 2>/dev/null && pwd)}"
OUTDIR="${OUTDIR:-$(mktemp -d /tmp/enzyme-it.XXXXXX)}"
mkdir -p "$OUTDIR"
[ -x "$ENZ_RS" ] || { echo "enz-rs not found: $ENZ_RS (set ENZ_RS)" >&2; exit 2; }
ENZ_RS="$(cd "$(dirname "$ENZ_RS")" && pwd)/$(basename "$ENZ_RS")"
case "${MPI:-openmpi}" in
  mpich) MPI_INC=/usr/include/x86_64-linux-gnu/mpich; MPI_LINK="-lmpich" ;;
  *) MPI_INC=/usr/lib/x86_64-linux-gnu/openmpi/include
     MPI_LINK="-L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi" ;;
esac
export ENZ_RS CLANG FILECHECK INCLUDE ROOT OUTDIR TIMEOUT MPI_INC MPI_LINK

if [ $# -gt 0 ]; then SUBS=("$@"); else
  SUBS=(); for s in ReverseMode ForwardMode BatchMode; do [ -d "$ROOT/$s" ] && SUBS+=("$s"); done
  [ ${#SUBS[@]} -eq 0 ] && SUBS=(.)
fi

# ---------------------------------------------------------------- planning
# One task per RUN line: "<id>\t<relpath>\t<index>\t<translated command>".
PLAN="$OUTDIR/plan.tsv"
python3 - "$ROOT" "${SUBS[@]}" > "$PLAN" <<'PY'
import os, re, sys
root, subs = sys.argv[1], sys.argv[2:]
flt = os.environ.get("FILTER")
files = []
for s in subs:
    d = os.path.join(root, s)
    for dp, dn, fn in os.walk(d):
        dn.sort()
        for f in sorted(fn):
            if f.endswith((".c", ".cpp")):
                p = os.path.join(dp, f)
                if flt and not re.search(flt, p):
                    continue
                files.append(p)

def run_lines(path):
    out, cur = [], None
    for line in open(path, errors="replace"):
        m = re.search(r"\bRUN:(.*)$", line)
        if not m:
            if cur is not None:  # continuation broken
                out.append(cur); cur = None
            continue
        txt = m.group(1).rstrip()
        if cur is not None:
            cur += " " + txt.strip()
        else:
            cur = txt.strip()
        if cur.endswith("\\"):
            cur = cur[:-1]
            continue
        out.append(cur); cur = None
    if cur is not None:
        out.append(cur)
    return out

PLUGIN = re.compile(r"%(newLoadClangEnzyme|loadClangEnzyme)\b")

def split_top(cmd, seps):
    """Split on separators outside quotes; returns list of (piece, sep)."""
    res, buf, q, i = [], "", None, 0
    while i < len(cmd):
        c = cmd[i]
        if q:
            buf += c
            if c == q: q = None
            i += 1; continue
        if c in "\"'":
            q = c; buf += c; i += 1; continue
        hit = None
        for s in seps:
            if cmd.startswith(s, i):
                hit = s; break
        if hit:
            res.append((buf, hit)); buf = ""; i += len(hit); continue
        buf += c; i += 1
    res.append((buf, ""))
    return res

def translate(cmd, path):
    tdir = os.path.dirname(path)
    # lit substitutions (longest first)
    cmd = cmd.replace("%s.out", "$T/s.out")
    cmd = re.sub(r"%llvmver\b", "22", cmd)
    cmd = cmd.replace("%O0TBAA", "-O1 -Xclang -disable-llvm-passes")
    cmd = re.sub(r"%t\b", "$T/t", cmd)
    cmd = re.sub(r"%FileCheck\b|(?<![\w/-])FileCheck\b", "fc_step", cmd)
    cmd = re.sub(r"(?<![\w/-])not(?= )", "not_step", cmd)
    # process each `&&`/`;`/`||`-separated command, then each pipe stage
    out = []
    for piece, sep in split_top(cmd, ["&&", "||", ";"]):
        stages = [s for s, _ in split_top(piece, ["|"])]
        new = []
        for st in stages:
            s = st
            if re.search(r"%opt\b", s):
                flags = re.sub(r".*%opt\b", "", s)
                flags = re.sub(r"%(OPloadEnzyme|loadEnzyme|newLoadEnzyme|enzyme|loadBC)\b", "", flags)
                flags = re.sub(r"(^|\s)-(?=\s|$)", " ", flags)
                flags = " ".join(f for f in flags.split() if f not in ("-S", "-enzyme", "--enzyme-attributor=0"))
                pre = re.sub(r"%opt\b.*", "", s)
                new.append(pre + "enz_step " + flags.replace("\"", "'").replace("$T", "\\$T") .join(["\"", "\""]) + " ")
                continue
            if re.search(r"%lli\b", s):
                new.append(re.sub(r"%lli\b(\s+-)?(\s+--jit-kind=\S+)?", "run_step", s))
                continue
            if re.search(r"%clang", s):
                plugin = bool(PLUGIN.search(s))
                s = PLUGIN.sub("", s)
                s = re.sub(r"-mllvm\s+-?-enzyme[-\w]*(=\S*)?", "", s)
                s = re.sub(r"-Xclang\s+-load\s+-Xclang\s+\S+|-fpass-plugin=\S+", "", s)
                # older tests pass cc1-only flags to the driver; clang 22 needs -Xclang
                s = re.sub(r"(?<!-Xclang )(?<![\w-])(-disable-llvm-passes|-disable-llvm-optzns)\b", r"-Xclang \1", s)
                s = re.sub(r"%clang\+\+", "cc_step c++", s)
                s = re.sub(r"%clang\b", "cc_step c", s)
                s = s.replace("%s", path)
                # Enzyme's clang plugin also reads its source attributes and
                # runs inside clang: with ENZ_PLUGIN, so does enz-rs's (the
                # CLI stage then finds nothing left to do, unless the
                # line disables clang's pipeline).
                if plugin and os.environ.get("ENZ_PLUGIN"):
                    p = os.environ["ENZ_PLUGIN"]
                    s = s.rstrip() + " -fplugin=" + p + " "
                new.append(s)
                if plugin:
                    if re.search(r"-emit-llvm", s) and re.search(r"-o\s+-(\s|$)", s):
                        new.append(" enz_step \"\" ")
                    elif "-emit-llvm" not in s:
                        m = re.search(r"-o\s+(\S+)", s)
                        outf = m.group(1) if m else "a.out"
                        base = re.sub(r"-o\s+\S+", "", s)
                        new[-1] = base + " -S -emit-llvm -o - "
                        libs = " -fopenmp" if "-fopenmp" in s else ""
                        new.append(" enz_step \"\" ")
                        new.append(" link_step" + libs + " -o " + outf + " ")
                continue
            s = s.replace("%s", path)
            new.append(s)
        out.append("|".join(new) + (" " + sep + " " if sep else ""))
    return "".join(out)

tid = 0
for f in files:
    rel = os.path.relpath(f, root)
    for i, rl in enumerate(run_lines(f), 1):
        tid += 1
        t = translate(rl, f).replace("\t", " ").replace("\n", " ")
        print("%05d\t%s\t%d\t%s" % (tid, rel, i, t))
PY

NTASKS=$(wc -l < "$PLAN")
echo "enz-rs: $ENZ_RS"
echo "tests:  $ROOT (${SUBS[*]}), $NTASKS RUN lines, $JOBS jobs, ${TIMEOUT}s each"
echo "logs:   $OUTDIR"

# ---------------------------------------------------------------- executing
cat > "$OUTDIR/stages.sh" <<'STAGES'
# Pipeline stages used by the translated RUN lines.  Each failing stage
# writes its first error line to $T/fail.<stage>.
incs() { local d; printf -- '-I%s -I%s -I%s' "$TDIR" "$(dirname "$TDIR")" "$ROOT"; IFS=: ; for d in $INCLUDE; do [ -n "$d" ] && printf -- ' -I%s' "$d"; done; unset IFS; [ -d "$MPI_INC" ] && printf -- ' -I%s' "$MPI_INC"; }
mpi_link() { grep -q 'MPI_' "$1" 2>/dev/null && printf -- '%s' "$MPI_LINK"; } # a module calling MPI links it
firsterr() { grep -m1 -iE 'error|panic|assert|fatal|undefined|abort|segmentation|not supported|unsupported' "$1" || grep -m1 -v '^\s*$' "$1"; }
cc_step() { # clang/clang++ as %clang
  local lang=$1; shift; local drv=$CLANG; [ "$lang" = "c++" ] && drv="${CLANG/clang/clang++}"
  command -v "$drv" >/dev/null || drv=$CLANG
  local n=$(( $(cat "$T/ncc" 2>/dev/null || echo 0) + 1 )); echo $n > "$T/ncc"
  "$drv" $(incs) -Wno-everything "$@" 2> "$T/cc$n.err"; local rc=$?
  cat "$T/cc$n.err" >&2
  if [ $rc -ne 0 ]; then echo "clang: $(firsterr "$T/cc$n.err")" >> "$T/fail.1cc"; fi
  return $rc
}
enz_step() { # replaces `%opt - <Enzyme plugin> <flags> -S`
  local flags="$1"; local n=$(( $(cat "$T/nenz" 2>/dev/null || echo 0) + 1 )); echo $n > "$T/nenz"
  [ -n "$flags" ] && echo "$flags" >> "$T/enzflags"
  cat > "$T/in$n.ll"
  if [ ! -s "$T/in$n.ll" ]; then echo "no input (previous stage failed)" >> "$T/fail.2enz_noinput"; return 1; fi
  "$ENZ_RS" "$T/in$n.ll" -o "$T/out$n.bc" 2> "$T/enz$n.err"; local rc=$?
  if [ $rc -ne 0 ]; then
    local sig=""; [ $rc -gt 128 ] && sig=" (signal $((rc-128)))"
    echo "enz-rs exit $rc$sig: $(firsterr "$T/enz$n.err")" >> "$T/fail.2enz"; cat "$T/enz$n.err" >&2; return $rc
  fi
  cat "$T/enz$n.err" >&2
  cat "$T/out$n.bc"
}
link_step() { # compile the differentiated module (stdin) to an executable
  cat > "$T/link.bc"
  "$CLANG" -x ir "$T/link.bc" -x none "$@" $(mpi_link "$T/link.bc") -lm -lstdc++ 2> "$T/link.err"; local rc=$?
  if [ $rc -ne 0 ]; then echo "link: $(firsterr "$T/link.err")" >> "$T/fail.3link"; fi
  return $rc
}
run_step() { # replaces `%lli -`
  local n=$(( $(cat "$T/nrun" 2>/dev/null || echo 0) + 1 )); echo $n > "$T/nrun"
  cat > "$T/run$n.bc"
  if [ ! -s "$T/run$n.bc" ]; then echo "no input" >> "$T/fail.2enz_noinput"; return 1; fi
  local omp=""; grep -q '__kmpc_\|omp_get' "$T/run$n.bc" 2>/dev/null && omp=-fopenmp
  # Symbols nothing defines are left unresolved, as `lli` resolves a
  # symbol only when code that runs needs it (code that does reaches
  # address 0 and fails).
  "$CLANG" -x ir "$T/run$n.bc" -x none $omp $(mpi_link "$T/run$n.bc") -lm -lstdc++ \
    -Wl,--unresolved-symbols=ignore-in-object-files -o "$T/exe$n" 2> "$T/link$n.err"; local rc=$?
  if [ $rc -ne 0 ]; then echo "link: $(firsterr "$T/link$n.err")" >> "$T/fail.3link"; cat "$T/link$n.err" >&2; return $rc; fi
  "$T/exe$n" "$@" 2> "$T/exe$n.err"; rc=$?
  cat "$T/exe$n.err" >&2
  if [ $rc -ne 0 ]; then
    local what="exit $rc"; [ $rc -gt 128 ] && what="signal $((rc-128))"
    echo "run: $what: $(firsterr "$T/exe$n.err" | cut -c1-200)" >> "$T/fail.4run"
  fi
  return $rc
}
fc_step() {
  "$FILECHECK" "$@" 2> "$T/fc.err"; local rc=$?
  if [ $rc -ne 0 ]; then echo "FileCheck: $(firsterr "$T/fc.err")" >> "$T/fail.5fc"; cat "$T/fc.err" >&2; fi
  return $rc
}
not_step() { "$@"; local rc=$?; if [ $rc -eq 0 ]; then echo "not: command unexpectedly succeeded" >> "$T/fail.6not"; return 1; fi; return 0; }
STAGES

run_one() {
  local id=$1 rel=$2 idx=$3 cmd=$4
  local T="$OUTDIR/runs/$id"; rm -rf "$T"; mkdir -p "$T"
  local TDIR; TDIR="$(dirname "$ROOT/$rel")"
  printf '%s\n' "$cmd" > "$T/cmd.sh"
  ( cd "$T" && T="$T" TDIR="$TDIR" timeout -k 5 "$TIMEOUT" bash -c "set -o pipefail; source '$OUTDIR/stages.sh'; $cmd" \
      > "$T/stdout" 2> "$T/stderr" < /dev/null ); local rc=$?
  local status=PASS reason=""
  if [ $rc -eq 0 ] && [ ! -f "$T/ncc" ] && [ ! -f "$T/nenz" ]; then
    status=SKIP; reason="nothing run (lit version guard false for LLVM 22, or setup-only line)"
  elif [ $rc -ne 0 ]; then
    status=FAIL
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then reason="timeout (${TIMEOUT}s)"
    else
      local f; for f in $(ls "$T"/fail.* 2>/dev/null | sort); do
        case "$f" in *fail.2enz_noinput) continue;; esac
        reason="$(head -1 "$f")"; break; done
      [ -z "$reason" ] && reason="shell: exit $rc: $(grep -m1 -v '^\s*$' "$T/stderr" | cut -c1-200)"
    fi
  fi
  reason="$(printf '%s' "$reason" | tr '\t\n' '  ' | cut -c1-300)"
  local flags=""; [ -f "$T/enzflags" ] && flags="$(sort -u "$T/enzflags" | tr '\n' ' ')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$status" "$rel" "$idx" "$reason" "$flags" "$T" > "$OUTDIR/results/$id"
  printf '%s %s:%s %s\n' "$status" "$rel" "$idx" "$reason"
  # keep only the logs of failures
  if [ "$status" = PASS ]; then rm -f "$T"/*.ll "$T"/*.bc "$T"/exe* "$T"/s.out; fi
}
export -f run_one
mkdir -p "$OUTDIR/results" "$OUTDIR/runs"
rm -f "$OUTDIR/results/"*
while IFS=$'\t' read -r id rel idx cmd; do
  printf '%s\0%s\0%s\0%s\0' "$id" "$rel" "$idx" "$cmd"
done < "$PLAN" | xargs -0 -n4 -P "$JOBS" bash -c 'run_one "$@"' _ > "$OUTDIR/progress.log"

# ---------------------------------------------------------------- summary
cat "$OUTDIR"/results/* > "$OUTDIR/results.tsv" 2>/dev/null || : > "$OUTDIR/results.tsv"
python3 - "$OUTDIR/results.tsv" <<'PY'
import re, sys, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
def folder(rel): return rel.split("/")[0] if "/" in rel else "."
tot = collections.Counter(); pas = collections.Counter(); skp = collections.Counter()
for st, rel, idx, reason, flags, t in rows:
    f = folder(rel)
    if st == "SKIP": skp[f] += 1; continue
    tot[f] += 1; pas[f] += st == "PASS"
print("\n== Summary (RUN lines; skipped = version guard false, not counted) ==")
for k in sorted(set(tot) | set(skp)):
    print("%-14s passed %4d / failed %4d / total %4d  (skipped %d)" % (k, pas[k], tot[k]-pas[k], tot[k], skp[k]))
n, p = sum(tot.values()), sum(pas.values())
print("%-14s passed %4d / failed %4d / total %4d  (skipped %d)" % ("ALL", p, n-p, n, sum(skp.values())))
def norm(r):
    r = re.sub(r"/[\w./+-]+", "<path>", r)
    r = re.sub(r"0x[0-9a-fA-F]+", "<hex>", r)
    r = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", r)
    r = re.sub(r"@[\w.$]+|%[\w.$]+", "<v>", r)
    r = re.sub(r"`_Z[^`]*?(__enzyme_\w+?)[a-z]?`", r"`\1`", r)  # mangled API names
    r = re.sub(r"`_Z[^`]*`", "`<mangled>`", r)
    r = re.sub(r"(too many arguments: |in function |call to )`[^`]*`", r"\1`…`", r)
    return r[:160]
groups = collections.defaultdict(list)
for st, rel, idx, reason, flags, t in rows:
    if st == "FAIL": groups[norm(reason)].append((rel, idx, reason, t))
if groups:
    print("\n== Failures by cause ==")
    for k, v in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        tests = sorted({r for r, _, _, _ in v})
        print("%4d  %s" % (len(v), k))
        print("      e.g. %s:%s  (%s)" % (v[0][0], v[0][1], v[0][3]))
        print("      tests: %s" % ", ".join(tests[:8]) + (" …" if len(tests) > 8 else ""))
PY
echo "(details: $OUTDIR/results.tsv; per-RUN logs under $OUTDIR/runs/<id>/, command in cmd.sh)"
