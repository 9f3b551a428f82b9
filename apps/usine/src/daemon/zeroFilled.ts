import type { Figure } from "@usine/store/LedgerFigures"

/**
 * `figures` with a 0 for every expected label set the ledger has no row for yet: a series a dashboard or an alert
 * knows by name is there from the daemon's first scrape, before any Run exists (Prometheus' advice for label values
 * known in advance). A row for a label set not expected (a Loop removed from the config) is kept as it is.
 */
export const zeroFilled = <L extends string>(
  expected: ReadonlyArray<Readonly<Record<L, string>>>,
  figures: ReadonlyArray<Figure<L>>
): ReadonlyArray<Figure<L>> => {
  const key = (labels: Readonly<Record<L, string>>) => JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)))
  const present = new Set(figures.map((f) => key(f.labels)))
  return [...figures, ...expected.filter((labels) => !present.has(key(labels))).map((labels) => ({ labels, value: 0 }))]
}
