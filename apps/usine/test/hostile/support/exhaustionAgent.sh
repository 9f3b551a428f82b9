# An agent that tries to exhaust its host (issue 31): the prompt's first line is `attack <name> …`; it does that one
# attack, says what happened on stdout, and fails as a real CLI would when the limit stops it (exit 1).
set -u
attack=$(sed -n '1s/^attack \([a-z0-9-]*\).*$/\1/p' "$USINE_PROMPT_FILE")
echo "hostile agent: attack $attack"
edit() { printf 'a change made by the %s attack\n' "$attack" >>"$1"; }
case $attack in
  fork-loop)
    # Forks until a fork fails, in a subshell (a shell that cannot fork gives up), keeping what it forked; then says
    # so with builtins only, since nothing can fork any more until those end.
    (n=0; while [ $n -lt 5000 ]; do sleep 30 & n=$((n + 1)); echo $n >/tmp/forks.count; done) 2>/tmp/fork.err
    read -r n </tmp/forks.count; read -r why </tmp/fork.err
    echo "forked $n processes before the fork failed"
    echo "fork refused after $n: $why" >&2
    [ "$n" -lt 5000 ] && exit 1 ;;
  tmpfs-fill)
    dd if=/dev/zero of=/tmp/fill bs=1M count=4096
    echo "wrote $(du -sk /tmp/fill | cut -f1) KiB to /tmp"
    dd if=/dev/zero of="$HOME/fill" bs=1M count=4096
    echo "wrote $(du -sk "$HOME/fill" | cut -f1) KiB to HOME"
    exit 1 ;;
  memory-hog)
    # One line of 2 GB of zeros: tail keeps the whole line in memory.
    head -c 2000000000 /dev/zero | tail -n 1 >/dev/null
    echo "memory hog exited $?"
    exit 1 ;;
  worktree-fill)
    # Files under the per-file limit whose sum is over the Worker's disk limit.
    for i in 1 2 3; do dd if=/dev/urandom of="big-$i.bin" bs=1M count=30 2>/dev/null; done
    echo "worktree holds $(du -sk . | cut -f1) KiB"
    edit CHANGES.md ;;
  whoami)
    echo "uid: $(id -u) gid: $(id -g) groups: $(id -G)"
    echo "etc: $(ls /etc | tr '\n' ' ')"
    [ -e /etc/shadow ] && echo "shadow: present" || echo "shadow: absent"
    cat /etc/shadow >/dev/null 2>&1 && echo "shadow: readable" || echo "shadow: unreadable"
    echo "passwd: $(cut -d: -f1,3 /etc/passwd | tr '\n' ' ')"
    touch "$HOME/x" && echo "home: writable"
    touch /tmp/x && echo "tmp: writable"
    touch /usr/x 2>/dev/null && echo "usr: writable" || echo "usr: read-only"
    edit CHANGES.md ;;
  clean)
    edit CHANGES.md ;;
  *)
    echo "no such attack: $attack"; exit 3 ;;
esac
echo "hostile agent: attack $attack done"
