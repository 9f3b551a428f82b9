import { Option, Tracer } from "effect"

/** The attribute a Run's own span carries (`RunDriver.drive`). */
const RUN_ATTRIBUTE = "usine.run_id"

/**
 * The parent of a Run's span: the span of whoever started it (a poll cycle, a webhook's Hint, an approval), as its
 * ids only, so a Run's fiber keeps no chain of ended spans alive. None when that caller is another Run's work (its
 * fiber taking up the Event queued behind it): every later Run of the Item would otherwise join one endless trace.
 */
export const runParentSpan = (caller: Option.Option<Tracer.AnySpan>): Option.Option<Tracer.ExternalSpan> => {
  if (Option.isNone(caller)) return Option.none()
  for (let at: Tracer.AnySpan | undefined = caller.value; at?._tag === "Span"; at = Option.getOrUndefined(at.parent)) {
    if (at.attributes.has(RUN_ATTRIBUTE)) return Option.none()
  }
  const { spanId, traceId, sampled } = caller.value
  return Option.some(Tracer.externalSpan({ spanId, traceId, sampled }))
}
