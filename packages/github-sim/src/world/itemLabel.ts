import type { SimLabel } from "./SimItem"
import type { SimRepository } from "./SimRepository"

/** GitHub's colour for a label created without one. */
export const DEFAULT_LABEL_COLOR = "ededed"

/** The catalog entry behind a label name an item carries; a name the catalog no longer has shows in the default colour. */
export const itemLabel = (repo: SimRepository, name: string): SimLabel =>
  repo.label(name) ?? { id: 0, name, color: DEFAULT_LABEL_COLOR, description: null, isDefault: false }
