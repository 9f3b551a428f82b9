/** A listen address only this machine can reach: `localhost`, `::1` or `127.x.y.z`. */
export const isLoopback = (host: string): boolean => {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase()
  return bare === "localhost" || bare === "::1" || /^127\.\d+\.\d+\.\d+$/.test(bare)
}
