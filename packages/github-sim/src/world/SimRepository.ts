import type { SimCheck } from "./SimFeedback"
import type { SimItem, SimLabel } from "./SimItem"

/** One emulated repository: its metadata, label catalog and items; its git data lives in `gitDir`. */
export class SimRepository {
  readonly items = new Map<number, SimItem>()
  /** Keyed by lowercase name: GitHub label names are case-insensitive. */
  readonly labels = new Map<string, SimLabel>()
  /** Check runs and commit statuses by commit sha. */
  readonly checks = new Map<string, Array<SimCheck>>()
  private lastNumber = 0
  updatedAt: number
  pushedAt: number

  constructor(
    readonly id: number,
    readonly owner: string,
    readonly name: string,
    readonly defaultBranch: string,
    readonly isPrivate: boolean,
    readonly description: string | null,
    readonly createdAt: number,
    readonly gitDir: string
  ) {
    this.updatedAt = createdAt
    this.pushedAt = createdAt
  }

  get fullName(): string {
    return `${this.owner}/${this.name}`
  }

  /** Issues and pull requests share this sequence. */
  nextNumber(): number {
    this.lastNumber += 1
    return this.lastNumber
  }

  label(name: string): SimLabel | undefined {
    return this.labels.get(name.toLowerCase())
  }

  openPullForHead(head: string): SimItem | undefined {
    for (const item of this.items.values()) {
      if (item.pull !== undefined && item.state === "open" && item.pull.head === head) return item
    }
    return undefined
  }
}
