/** Heap and RSS in MB after two full collections (node --expose-gc); without the flag the heap includes garbage. */
export const memoryAfterGc = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const m = process.memoryUsage()
  const mb = (bytes: number) => Math.round((bytes / 1e6) * 10) / 10
  return { collected: gc !== undefined, heapMb: mb(m.heapUsed), rssMb: mb(m.rss), externalMb: mb(m.external) }
}
