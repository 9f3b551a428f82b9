import type { FC } from "hono/jsx"
import { CSRF_FIELD } from "../BoardServer/security"

/**
 * One operator action as a plain form post: it works without JavaScript (303 back to `back`), and the script turns
 * it into a fetch that asks for JSON and refreshes the page.
 */
export const ActionButton: FC<{
  action: string
  label: string
  testId: string
  csrf: string
  back: string
  fields?: Readonly<Record<string, string | number | undefined>>
  confirm?: string
}> = (props) => (
  <form method="post" action={props.action} class="action" data-live-form data-confirm={props.confirm}>
    <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
    <input type="hidden" name="back" value={props.back} />
    {Object.entries(props.fields ?? {}).map(([name, value]) =>
      value === undefined ? null : <input type="hidden" name={name} value={String(value)} />
    )}
    <button type="submit" data-testid={props.testId}>{props.label}</button>
  </form>
)
