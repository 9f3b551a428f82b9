/**
 * The `sh -c` program that runs outside the sandbox, in the session's process group (so it outlives the daemon and
 * dies with the session): `$1` is the bridge folder, `$2` the uid the sockets are given to (a root daemon's sandbox,
 * whose agent has another uid; empty otherwise), then `socket host:port` pairs up to `--`, then bwrap's argv.
 * For each pair, once the endpoint accepts a connection, it starts a `socat` listening on the unix socket that
 * connects to the endpoint; an endpoint that refuses is tried again every second (`N.sock.down` says so), so the
 * agent sees it refused, as it would without the sandbox, until it comes up. It waits for the first try of every
 * bridge (all at once), runs bwrap, stops the bridges and exits with bwrap's status (the agent's).
 */
export const launcherScript = `n=$1; o=$2; shift 2; b=; w=; socat=$(command -pv socat)
while [ "$1" != -- ]; do
  s=$1; t=$2; shift 2
  (cd "$n" && command -p rm -f "$s" "$s.down"
    until "$socat" -u OPEN:/dev/null TCP:"$t",connect-timeout=2 2>/dev/null; do : >"$s.down"; command -p sleep 1; done
    command -p rm -f "$s.down"
    exec "$socat" "UNIX-LISTEN:$s,fork,mode=600\${o:+,user=$o,group=$o}" TCP:"$t") </dev/null >/dev/null 2>>"$n/bridges.log" &
  b="$b $!"; w="$w $s"
done
shift
i=0; for s in $w; do while [ ! -S "$n/$s" ] && [ ! -e "$n/$s.down" ] && [ $i -lt 800 ]; do i=$((i+1)); command -p sleep 0.005; done; done
"$@"
code=$?
[ -z "$b" ] || kill $b 2>/dev/null
exit $code
`

/**
 * The `sh -c` program bwrap starts inside: `$1` is the bridge folder, then `socket address port` triples up to
 * `--`, then the agent's argv. Each triple gets a `socat` listening on `address:port` (the loopback of the
 * sandbox's own network namespace) that forwards to the unix socket, as soon as that socket exists (a refused
 * endpoint's appears once it is up); the agent starts once the listeners of the sockets already there are in
 * `/proc/net/tcp`, and replaces this shell.
 */
export const insideScript = `n=$1; shift; w=; socat=$(command -pv socat)
while [ "$1" != -- ]; do
  s=$1; a=$2; p=$3; shift 3
  (cd "$n" && until [ -S "$s" ]; do command -p sleep 0.5; done
    exec "$socat" TCP-LISTEN:"$p",bind="$a",reuseaddr,fork UNIX-CONNECT:"$s") </dev/null >/dev/null 2>&1 &
  [ -S "$n/$s" ] && w="$w $(echo "$a" | { IFS=. read o1 o2 o3 o4; printf '%02X%02X%02X%02X:%04X' "$o4" "$o3" "$o2" "$o1" "$p"; })"
done
shift
i=0; for x in $w; do until command -p grep -q ": $x 00000000:0000 0A" /proc/net/tcp || [ $i -ge 500 ]; do i=$((i+1)); command -p sleep 0.005; done; done
exec "$@"
`
