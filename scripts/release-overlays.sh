# Throwaway overlays over the release roots (scripts/release-root), for
# scripts/test-releases and scripts/bench-releases; sourced, with $work the
# run's directory (under /tmp).

# Ends every process left in an overlay (a check's, or what restored
# launched there), by pid, then takes the overlays away: each one's tmpfs
# detached with all that is mounted below it.
release_overlays() {
    for entry in /proc/[0-9]*; do
        case "$(readlink "$entry/root" 2>/dev/null)" in "$work"/*) kill -9 "${entry#/proc/}" 2>/dev/null || true ;; esac
    done
    sleep 0.2
    for mount in $(awk -v w="$work" 'index($2, w "/") == 1 && substr($2, length(w) + 2) !~ "/" { print $2 }' /proc/self/mounts); do
        umount -l "$mount" 2>/dev/null || true
    done
}

# Takes every overlay away, then the run's directory.
cleanup() {
    release_overlays
    rm -rf --one-file-system "$work"
}

# Mounts a throwaway overlay of ROOT at $work/NAME/merged (a tmpfs holds
# what the check changes) with the machine's /proc, /dev and /tmp bound in,
# and prints its path. /tmp is bound alone, not with what is mounted under
# it: each check's overlay lies there, and every later overlay would copy
# the earlier ones' mounts, doubling them at each check.
overlay() {
    local root="$1" name="$2" dir="$work/$2"
    mkdir -p "$dir"
    mount -t tmpfs tmpfs "$dir"
    mkdir -p "$dir/upper" "$dir/work" "$dir/merged"
    mount -t overlay overlay -o "lowerdir=$root,upperdir=$dir/upper,workdir=$dir/work" "$dir/merged"
    mount -t proc proc "$dir/merged/proc"
    mount --rbind /dev "$dir/merged/dev"
    mount --make-rslave "$dir/merged/dev"
    mount --bind /tmp "$dir/merged/tmp"
    mount --make-slave "$dir/merged/tmp"
    echo "$dir/merged"
}
