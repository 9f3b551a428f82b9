import type { Check } from "./checkInvariants"

interface Row {
  count: number
  checked: number
  violations: Array<string>
}

const pad = (text: string, width: number) => text + " ".repeat(Math.max(0, width - text.length))
const padStart = (text: string, width: number) => " ".repeat(Math.max(0, width - text.length)) + text

/**
 * What a resilience test injected and what it checked, counted as it goes, printed as one table at the end. A check
 * keeps its first violations for the failure message.
 */
export class FaultTable {
  private readonly injected = new Map<string, Row>()
  private readonly checks = new Map<string, Row>()
  private readonly notes: Array<string> = []

  constructor(readonly title: string) {}

  /** One more fault of this kind. */
  inject(kind: string, count = 1): void {
    const row = this.injected.get(kind) ?? { count: 0, checked: 0, violations: [] }
    row.count += count
    this.injected.set(kind, row)
  }

  /** Records an evaluated invariant. */
  record(result: Check, context = ""): void {
    const row = this.checks.get(result.invariant) ?? { count: 0, checked: 0, violations: [] }
    row.count += 1
    row.checked += result.checked
    for (const violation of result.violations) if (row.violations.length < 20) row.violations.push(context === "" ? violation : `${context}: ${violation}`)
    this.checks.set(result.invariant, row)
  }

  /** A yes/no check with a description of what it looked at. */
  assert(invariant: string, holds: boolean, violation: string, checked = 1): void {
    this.record({ invariant, checked, violations: holds ? [] : [violation] })
  }

  /** A figure worth printing under the table (a duration, a size). */
  note(text: string): void {
    this.notes.push(text)
  }

  violations(): ReadonlyArray<string> {
    return [...this.checks].flatMap(([invariant, row]) => row.violations.map((v) => `${invariant}: ${v}`))
  }

  /** Injected faults (sorted, so kinds group) and checked invariants, with counts; a check's status is `ok` or its number of violations. */
  render(): string {
    const injected = [...this.injected].sort(([a], [b]) => a.localeCompare(b)).map(([kind, row]) => [kind, String(row.count)] as const)
    const checks = [...this.checks].map(
      ([invariant, row]) => [invariant, String(row.count), String(row.checked), row.violations.length === 0 ? "ok" : `${row.violations.length} VIOLATED`] as const
    )
    const w = Math.max(40, ...injected.map(([k]) => k.length), ...checks.map(([k]) => k.length))
    const line = "-".repeat(w + 34)
    return [
      `== ${this.title}`,
      line,
      `${pad("injected", w)}  ${padStart("times", 8)}`,
      ...injected.map(([kind, count]) => `${pad(kind, w)}  ${padStart(count, 8)}`),
      line,
      `${pad("checked", w)}  ${padStart("times", 8)}  ${padStart("objects", 9)}  status`,
      ...checks.map(([invariant, times, objects, status]) => `${pad(invariant, w)}  ${padStart(times, 8)}  ${padStart(objects, 9)}  ${status}`),
      line,
      ...this.notes
    ].join("\n")
  }

  /** Prints the table (to stderr, which Vitest shows even for a passing test). */
  print(): void {
    process.stderr.write(`\n${this.render()}\n`)
  }
}
