# Sourced by the GPU bundle's scripts (run.sh, sanitize.sh, variants.sh) and by one-off device
# call scripts: `. "$here/libs.sh"` (scripts/gpu-check.sh copies this file into gpu-bundle/ as
# libs.sh). The driver is found by the system loader; NVRTC and cuBLAS may live in the toolkit
# or in Python wheels: the first directory that has each goes on LD_LIBRARY_PATH, unless the
# loader already knows it. With MPBLAS_LIBS_VERBOSE=1 each directory is printed.
mpblas_find_lib() {
    local name=$1 d
    if ldconfig -p 2>/dev/null | grep -q "$name"; then return 0; fi
    for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
             /usr/local/cuda-13*/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
        if [ -e "$d/$name" ]; then echo "$d"; return 0; fi
    done
    find / -xdev -name "$name" -not -path '/proc/*' 2>/dev/null | head -n 1 | xargs -r dirname
}
for mpblas_lib in libnvrtc.so.13 libcublas.so.13; do
    mpblas_dir=$(mpblas_find_lib "$mpblas_lib")
    if [ -n "$mpblas_dir" ]; then
        export LD_LIBRARY_PATH="$mpblas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        [ "${MPBLAS_LIBS_VERBOSE:-0}" = 1 ] && echo "$mpblas_lib: $mpblas_dir"
    fi
done
unset mpblas_lib mpblas_dir
