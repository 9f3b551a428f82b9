/** `--sizes 10000,100000` (or another flag) overrides a bench's input sizes for a quick look; defaults are the issue's. */
export const sizesFromArgs = (defaults: ReadonlyArray<number>, flag = "--sizes"): ReadonlyArray<number> => {
  const index = process.argv.indexOf(flag)
  const value = index >= 0 ? process.argv[index + 1] : undefined
  if (value === undefined) return defaults
  return value.split(",").map((s) => Number(s.replace(/_/g, ""))).filter((n) => Number.isFinite(n) && n > 0)
}
