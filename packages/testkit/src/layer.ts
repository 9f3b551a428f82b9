import { live, prop, flakyTest, type Vitest } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Logger, Scope, TestContext } from "effect"
import * as V from "vitest"

/** @effect/vitest's test environment: TestClock and friends, the default logger removed. */
const TestEnv = TestContext.TestContext.pipe(Layer.provide(Logger.remove(Logger.defaultLogger)))

type Provide = <A, E, Needs>(effect: Effect.Effect<A, E, Needs>) => Effect.Effect<A, E>

/** A tester whose every test effect goes through `provide` first, modifiers included; `live` adds nothing else. */
const providedTester = <R>(provide: Provide): Vitest.Tester<R> => {
  const wrap = <Args extends Array<unknown>>(self: (...args: Args) => Effect.Effect<unknown, unknown, any>) =>
  (...args: Args) => provide(Effect.suspend(() => self(...args)))
  const base = live
  return Object.assign(
    (name: string, self: Vitest.TestFunction<unknown, unknown, any, [V.TestContext]>, timeout?: number | V.TestOptions) =>
      base(name, wrap(self), timeout),
    {
      skip: (name: string, self: any, timeout?: number | V.TestOptions) => base.skip(name, wrap(self), timeout),
      skipIf: (condition: unknown) => (name: string, self: any, timeout?: number | V.TestOptions) =>
        base.skipIf(condition)(name, wrap(self), timeout),
      runIf: (condition: unknown) => (name: string, self: any, timeout?: number | V.TestOptions) =>
        base.runIf(condition)(name, wrap(self), timeout),
      only: (name: string, self: any, timeout?: number | V.TestOptions) => base.only(name, wrap(self), timeout),
      each: <T>(cases: ReadonlyArray<T>) => (name: string, self: any, timeout?: number | V.TestOptions) =>
        base.each(cases)(name, wrap(self), timeout),
      fails: (name: string, self: any, timeout?: number | V.TestOptions) => base.fails(name, wrap(self), timeout),
      prop: (name: string, arbitraries: any, self: any, timeout?: any) => base.prop(name, arbitraries, wrap(self), timeout)
    }
  ) as unknown as Vitest.Tester<R>
}

/** vitest's own `it` for plain tests in a layer's body, a new function each time: vitest's `it` is never assigned to. */
const plainIt = () => Object.assign((...args: Parameters<typeof V.it>) => V.it(...args), {
  skip: (...args: Parameters<typeof V.it.skip>) => V.it.skip(...args),
  only: (...args: Parameters<typeof V.it.only>) => V.it.only(...args),
  todo: (...args: Parameters<typeof V.it.todo>) => V.it.todo(...args),
  skipIf: (condition: unknown) => V.it.skipIf(condition),
  runIf: (condition: unknown) => V.it.runIf(condition),
  each: V.it.each.bind(V.it),
  for: V.it.for.bind(V.it)
})

type Body<R, ExcludeTestServices extends boolean> = (it: Vitest.MethodsNonLive<R, ExcludeTestServices>) => void

interface LayerOptions<ExcludeTestServices extends boolean> {
  readonly memoMap?: Layer.MemoMap
  readonly timeout?: Duration.DurationInput
  readonly excludeTestServices?: ExcludeTestServices
}

/**
 * @effect/vitest's `layer`, without its side effect: theirs `Object.assign`s the layer's testers onto vitest's shared
 * `it`, so a later top-level `layer` in the same file is built inside the first (sharing its memo map, hence its
 * ledger) and, under `--no-isolate`, the next file's `layer` inside the last file's. This one hands its body a fresh
 * object each call: a layer is shared only where a body nests it (`it.layer`), as the reader sees.
 */
export const layer = <R, E, const ExcludeTestServices extends boolean = false>(
  layer_: Layer.Layer<R, E>,
  options?: LayerOptions<ExcludeTestServices>
) =>
(...args: [name: string, body: Body<R, ExcludeTestServices>] | [body: Body<R, ExcludeTestServices>]): void => {
  const excludeTestServices = options?.excludeTestServices ?? false
  const withTestEnv = (excludeTestServices ? layer_ : Layer.provideMerge(layer_, TestEnv)) as Layer.Layer<R, E>
  const memoMap = options?.memoMap ?? Effect.runSync(Layer.makeMemoMap)
  const scope = Effect.runSync(Scope.make())
  const runtime = Layer.toRuntimeWithMemoMap(withTestEnv, memoMap).pipe(
    Scope.extend(scope),
    Effect.orDie,
    Effect.cached,
    Effect.runSync
  )
  const provide: Provide = (effect) =>
    Effect.flatMap(runtime, (rt) => Effect.provide(effect as unknown as Effect.Effect<unknown, unknown, R>, rt)) as Effect.Effect<never>
  const it = Object.assign(plainIt(), {
    effect: providedTester(provide),
    scoped: providedTester((effect) => provide(Effect.scoped(effect))),
    flakyTest,
    prop,
    layer: <R2, E2>(nested: Layer.Layer<R2, E2, R>, nestedOptions?: { readonly timeout?: Duration.DurationInput }) =>
      layer(Layer.provideMerge(nested, withTestEnv), { ...nestedOptions, memoMap, excludeTestServices })
  })
  const timeout = options?.timeout ? Duration.toMillis(options.timeout) : undefined
  const suite = (body: Body<R, ExcludeTestServices>) => {
    V.beforeAll(() => Effect.runPromise(Effect.asVoid(runtime)), timeout)
    V.afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)), timeout)
    body(it as unknown as Vitest.MethodsNonLive<R, ExcludeTestServices>)
  }
  // Named, a describe of its own; unnamed, the enclosing describe's hooks (as @effect/vitest's).
  if (args.length === 1) suite(args[0])
  else V.describe(args[0], () => suite(args[1]))
}
