/**
 * The `sh -c` program that runs outside the sandbox, in the session's process group (so it outlives the daemon and
 * dies with the session): `$1` is the bridge folder, then `socket host:port` pairs up to `--`, then bwrap's argv.
 * For each pair it starts a `socat` listening on the unix socket that connects to the real endpoint, waits for
 * the socket, runs bwrap, stops the bridges and exits with bwrap's status (the agent's).
 */
export const launcherScript = `n=$1; shift; b=; socat=$(command -pv socat)
while [ "$1" != -- ]; do
  s=$1; t=$2; shift 2
  (cd "$n" && command -p rm -f "$s" && exec "$socat" UNIX-LISTEN:"$s",fork,mode=600 TCP:"$t") </dev/null >/dev/null 2>>"$n/bridges.log" &
  b="$b $!"
  i=0; while [ ! -S "$n/$s" ] && [ $i -lt 500 ]; do i=$((i+1)); command -p sleep 0.01; done
done
shift
"$@"
code=$?
[ -z "$b" ] || kill $b 2>/dev/null
exit $code
`

/**
 * The `sh -c` program bwrap starts inside: `$1` is the bridge folder, then `socket address port` triples up to
 * `--`, then the agent's argv. Each triple gets a `socat` listening on `address:port` (the loopback of the
 * sandbox's own network namespace) that forwards to the unix socket; the agent starts once every listener is in
 * `/proc/net/tcp`, and replaces this shell.
 */
export const insideScript = `n=$1; shift; socat=$(command -pv socat)
while [ "$1" != -- ]; do
  s=$1; a=$2; p=$3; shift 3
  (cd "$n" && exec "$socat" TCP-LISTEN:"$p",bind="$a",reuseaddr,fork UNIX-CONNECT:"$s") </dev/null >/dev/null 2>&1 &
  x=$(echo "$a" | { IFS=. read w x y z; printf '%02X%02X%02X%02X:%04X' "$z" "$y" "$x" "$w" "$p"; })
  i=0; until command -p grep -q ": $x 00000000:0000 0A" /proc/net/tcp || [ $i -ge 500 ]; do i=$((i+1)); command -p sleep 0.01; done
done
shift
exec "$@"
`
