import type { components } from "@octokit/openapi-types"
import { itemLabel } from "../../world/itemLabel"
import type { SimLabel } from "../../world/SimItem"
import type { SimRepository } from "../../world/SimRepository"
import type { SimWorld } from "../../world/SimWorld"

/** GitHub's `label`. */
export const labelJson = (world: SimWorld, repo: SimRepository, label: SimLabel): components["schemas"]["label"] => ({
  id: label.id,
  node_id: `LA_sim${label.id}`,
  url: `${world.baseUrl}/repos/${repo.fullName}/labels/${encodeURIComponent(label.name)}`,
  name: label.name,
  description: label.description,
  color: label.color,
  default: label.isDefault
})

/** The catalog entry behind a label name an item carries. */
export const itemLabelJson = (world: SimWorld, repo: SimRepository, name: string) =>
  labelJson(world, repo, itemLabel(repo, name))
