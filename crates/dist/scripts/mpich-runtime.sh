#!/bin/sh
# Gathers an MPI example of matexp-dist built against MPICH, with the MPICH runtime it needs,
# into one folder that runs on a Linux host without MPICH (any glibc at least as new as the
# build host's; the host's glibc, libgcc_s and libstdc++ are used, everything else comes
# from the folder).
#
#   crates/dist/scripts/mpich-runtime.sh BINARY DIR
#
# BINARY: the example, e.g. target/release/examples/dist_scaling (build it with
#   `cargo build --release -p matexp-dist --features mpi --example dist_scaling`).
# DIR: the folder to fill (created; bin/ and lib/ replaced).
#
# What it copies: BINARY (stripped of debug information), hydra's mpiexec.hydra and
# hydra_pmi_proxy, every shared library that `ldd` resolves for those three outside the C
# and C++ runtime (libmpich.so.12 and its dependencies: hwloc, UCX, numa, udev; hydra's
# slurm library) and UCX's single-host transport module (cma). Then writes DIR/run.sh and
# DIR/COMMIT (the commit of the checkout holding this script, `-dirty` when tracked files
# have changes, or $MATEXP_COMMIT).
#
# DIR/run.sh OUT [ARGS...] runs BINARY under `mpiexec.hydra -n R -bind-to core` for
# R in $RANKS (default "1 2 4 8") and each mode in $MODES (default "strong weak"), with
# `--mode MODE --out OUT --ranks-label R-ranks-bind-core ARGS...`, one log per run in OUT.
set -eu

usage() {
    echo "usage: $0 BINARY DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
BIN=$1
DIR=$2
[ -x "$BIN" ] || { echo "$BIN: not an executable" >&2; exit 1; }
# The checkout this script lives in, for the commit of the build.
HERE=$(cd "$(dirname "$0")" && pwd)

find_tool() {
    for d in /usr/bin /usr/lib/x86_64-linux-gnu/mpich/bin /usr/lib64/mpich/bin; do
        if [ -x "$d/$1" ]; then
            echo "$d/$1"
            return 0
        fi
    done
    command -v "$1" || { echo "$1 not found (install MPICH's hydra)" >&2; exit 1; }
}
MPIEXEC=$(find_tool mpiexec.hydra)
PROXY=$(find_tool hydra_pmi_proxy)

# libmpich's directory holds UCX's modules (ucx/) and hwloc's plugins (hwloc/).
MPICH_LIB=$(ldd "$BIN" | awk '$1 ~ /^libmpich\.so/ { print $3 }')
[ -n "$MPICH_LIB" ] || { echo "$BIN does not link libmpich (built against MPICH?)" >&2; exit 1; }
LIBDIR=$(dirname "$(readlink -f "$MPICH_LIB")")

mkdir -p "$DIR"
rm -rf "$DIR/bin" "$DIR/lib"
mkdir -p "$DIR/bin" "$DIR/lib/ucx" "$DIR/lib/hwloc"

name=$(basename "$BIN")
cp "$BIN" "$DIR/bin/$name"
strip --strip-debug "$DIR/bin/$name" 2>/dev/null || true
cp "$MPIEXEC" "$PROXY" "$DIR/bin/"

# The single-host UCX transport (cross-memory attach); the InfiniBand and RDMA-CM modules
# need the verbs libraries and are left out (MPICH's shared memory carries messages within
# one host).
UCX_MODULES=""
for m in "$LIBDIR"/ucx/libuct_cma.so.*; do
    [ -e "$m" ] || continue
    case "$m" in *.so.*.*) continue ;; esac
    cp -L "$m" "$DIR/lib/ucx/"
    UCX_MODULES="$UCX_MODULES $m"
done

# The C and C++ runtime stay the host's.
is_system() {
    case "$1" in
        ld-linux*.so* | linux-vdso.so* | libc.so.* | libm.so.* | libmvec.so.* | \
            libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | libutil.so.* | \
            libanl.so.* | libgcc_s.so.* | libstdc++.so.*)
            return 0
            ;;
    esac
    return 1
}

# shellcheck disable=SC2086
for f in "$BIN" "$MPIEXEC" "$PROXY" $UCX_MODULES; do
    ldd "$f"
done | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u | while read -r so path; do
    if is_system "$so"; then
        continue
    fi
    cp -L "$path" "$DIR/lib/$so"
done

if [ -n "${MATEXP_COMMIT:-}" ]; then
    commit=$MATEXP_COMMIT
elif commit=$(git -C "$HERE" rev-parse --short=12 HEAD 2>/dev/null); then
    if [ -n "$(git -C "$HERE" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit-dirty"
    fi
else
    commit=unknown
fi
echo "$commit" >"$DIR/COMMIT"

cat >"$DIR/run.sh" <<EOF
#!/bin/sh
# run.sh OUT [ARGS...]: $name under MPICH's hydra from this folder, for R in \$RANKS
# (default "1 2 4 8") ranks bound to cores and each mode in \$MODES (default
# "strong weak"); logs OUT/R<R>-<mode>.log, records in OUT. Exit status: the number of
# failed runs.
set -u
HERE=\$(cd "\$(dirname "\$0")" && pwd)
[ \$# -ge 1 ] || { echo "usage: \$0 OUT [ARGS...]" >&2; exit 2; }
OUT=\$1
shift
mkdir -p "\$OUT"
OUT=\$(cd "\$OUT" && pwd)

export LD_LIBRARY_PATH="\$HERE/lib"
export HYDRA_LAUNCHER=fork
export HWLOC_PLUGINS_PATH="\$HERE/lib/hwloc"
export UCX_MODULE_DIR="\$HERE/lib/ucx"
export RAYON_NUM_THREADS=1
export MATEXP_COMMIT=\$(cat "\$HERE/COMMIT")

# The records' device name, as matexp's xtask names CPU hosts: cpu-<model>-<cores>core
# (a generic model name gets the family and model numbers).
device_name() {
    info=/proc/cpuinfo
    model=\$(sed -n 's/^model name[[:space:]]*: *//p' \$info | head -n 1)
    family=\$(sed -n 's/^cpu family[[:space:]]*: *//p' \$info | head -n 1)
    number=\$(sed -n 's/^model[[:space:]]*: *//p' \$info | head -n 1)
    cores=\$(nproc)
    slug=\$(printf '%s\n' "\$model" | sed -e 's/(R)/ /g' -e 's/(TM)/ /g' -e 's/(tm)/ /g' | awk '{
        out = ""
        for (i = 1; i <= NF; i++) {
            w = tolower(\$i)
            if (w == "@" || w ~ /ghz\$/) break
            if (w == "cpu" || w == "processor" || w == "with" || w == "radeon" || w == "graphics" || w ~ /-core\$/) continue
            gsub(/[^a-z0-9]/, "-", w); gsub(/^-+/, "", w); gsub(/-+\$/, "", w)
            if (w != "") out = (out == "" ? w : out "-" w)
        }
        print out }')
    if [ -z "\$slug" ]; then
        echo "cpu-\${cores}core"
        return
    fi
    if ! printf '%s' "\$slug" | grep -q '[0-9]' && [ -n "\$family" ] && [ -n "\$number" ]; then
        slug="\$slug-f\${family}m\${number}"
    fi
    echo "cpu-\$slug-\${cores}core"
}
export MATEXP_BENCH_DEVICE=\${MATEXP_BENCH_DEVICE:-\$(device_name)}

echo "device \$MATEXP_BENCH_DEVICE, commit \$MATEXP_COMMIT, \$(nproc) cores; logs and records in \$OUT"
failed=0
for R in \${RANKS:-1 2 4 8}; do
    for MODE in \${MODES:-strong weak}; do
        log="\$OUT/R\$R-\$MODE.log"
        echo "== \$R ranks, \$MODE: \$log"
        start=\$(date +%s)
        "\$HERE/bin/mpiexec.hydra" -n "\$R" -bind-to core \\
            "\$HERE/bin/$name" --mode "\$MODE" --out "\$OUT" \\
            --ranks-label "\$R-ranks-bind-core" "\$@" >"\$log" 2>&1
        rc=\$?
        cat "\$log"
        echo "== exit \$rc after \$((\$(date +%s) - start)) s"
        [ \$rc -eq 0 ] || failed=\$((failed + 1))
    done
done
exit \$failed
EOF
chmod +x "$DIR/run.sh"

du -sh "$DIR"
echo "libraries:"
ls "$DIR/lib" "$DIR/lib/ucx"
