import { Context, Layer } from "effect"
import type { TranscriptEntry } from "../transcript/TranscriptRow"
import { secretEncodings } from "./secretEncodings"

type SecretKind =
  | "private_key"
  | "github_token"
  | "anthropic_key"
  | "openai_key"
  | "aws_access_key"
  | "authorization"
  | "url_credentials"
  | "secret"
  | "encoded_secret"

interface SecretPattern {
  readonly kind: SecretKind
  /** A regular expression source without capturing groups. */
  readonly source: string
}

const PRIVATE_KEY =
  "-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----" +
  // an unterminated block (cut-off output) is redacted as far as its base64 body goes
  "(?:[\\s\\S]{0,16384}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\\s:,-]*)"
const GITHUB = "\\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"
const AWS = "\\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\\b"

/**
 * High-confidence patterns: formats that are secrets whenever they appear. They drive the push guard, where a
 * false positive stops an Attempt, so OpenAI and Anthropic keys need their full modern shape here.
 */
const HIGH_CONFIDENCE: ReadonlyArray<SecretPattern> = [
  { kind: "private_key", source: PRIVATE_KEY },
  { kind: "github_token", source: GITHUB },
  { kind: "anthropic_key", source: "\\bsk-ant-[a-z]+\\d{2}-[A-Za-z0-9_-]{40,}" },
  { kind: "openai_key", source: "\\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})" },
  { kind: "aws_access_key", source: AWS }
]

/** Redaction costs little when wrong, so it also takes looser shapes and credentials in context. */
const REDACTION: ReadonlyArray<SecretPattern> = [
  { kind: "private_key", source: PRIVATE_KEY },
  { kind: "github_token", source: GITHUB },
  { kind: "anthropic_key", source: "\\bsk-ant-[A-Za-z0-9_-]{20,}" },
  { kind: "openai_key", source: "\\bsk-[A-Za-z0-9_-]{20,}" },
  { kind: "aws_access_key", source: AWS },
  { kind: "authorization", source: "\\b(?:[Bb]earer|[Tt]oken|[Bb]asic)[ \\t]+[A-Za-z0-9._~+/-]{16,}=*" },
  { kind: "url_credentials", source: "\\b[a-z][a-z0-9+.-]{0,20}://[^\\s/:@]{1,256}:[^\\s/@]{1,1024}@" }
]

/** A registered value shorter than this would shred ordinary text, so it is not registered. */
const MIN_SECRET_LENGTH = 8

export interface SecretFinding {
  readonly kind: SecretKind
  readonly index: number
  readonly length: number
}

export interface RedactorService {
  /** Replaces every secret in `text` with `[REDACTED:<kind>]`; linear in the text's length. */
  readonly redact: (text: string) => string
  /** Redacts a transcript row's text before it is stored or shown. */
  readonly redactEntry: (entry: TranscriptEntry) => TranscriptEntry
  /** Finds high-confidence secrets and registered values only, for the push guard. */
  readonly scan: (text: string) => ReadonlyArray<SecretFinding>
}

const escape = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const compile = (patterns: ReadonlyArray<SecretPattern>): RegExp =>
  new RegExp(patterns.map((p) => `(${p.source})`).join("|"), "g")

/** The pattern whose group matched: each pattern is exactly one capturing group, in order. */
const matchedKind = (patterns: ReadonlyArray<SecretPattern>, groups: ReadonlyArray<unknown>): SecretKind => {
  const index = groups.findIndex((group) => group !== undefined)
  return patterns[index]?.kind ?? "secret"
}

const replacement = (kind: SecretKind, match: string): string => {
  const marker = `[REDACTED:${kind}]`
  if (kind === "authorization") return match.replace(/^(\S+[ \t]+)[\s\S]*$/, `$1${marker}`)
  if (kind === "url_credentials") return match.replace(/^([^:]+:\/\/)[\s\S]*@$/, `$1${marker}@`)
  return marker
}

/**
 * A redactor for the built-in patterns and the exact `secrets` known at runtime (the configured GitHub token), each
 * also in its common encodings (base64, hex, URL-encoding: `secretEncodings`), which an agent could carry out instead.
 */
export const makeRedactor = (secrets: ReadonlyArray<string> = []): RedactorService => {
  const values = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH)
  const encoded = new Set(values.flatMap((s) => secretEncodings(s, MIN_SECRET_LENGTH)).filter((e) => !values.includes(e)))
  // Longest first, so a value is taken whole before a shorter one inside it.
  const registered: ReadonlyArray<SecretPattern> = [
    ...values.map((s) => ({ kind: "secret" as const, value: s })),
    ...[...encoded].map((s) => ({ kind: "encoded_secret" as const, value: s }))
  ]
    .sort((a, b) => b.value.length - a.value.length)
    .map(({ kind, value }) => ({ kind, source: escape(value) }))
  const redaction = [...registered, ...REDACTION]
  const scanning = [...registered, ...HIGH_CONFIDENCE]
  const redactPattern = compile(redaction)
  const scanPattern = compile(scanning)

  const redact = (text: string): string =>
    text.replace(redactPattern, (match: string, ...rest: Array<unknown>) =>
      replacement(matchedKind(redaction, rest.slice(0, redaction.length)), match)
    )

  return {
    redact,
    redactEntry: (entry) => ({
      ...entry,
      text: redact(entry.text),
      ...(entry.tool === undefined ? {} : { tool: redact(entry.tool) })
    }),
    scan: (text) =>
      Array.from(text.matchAll(scanPattern), (m) => ({
        kind: matchedKind(scanning, m.slice(1)),
        index: m.index,
        length: m[0].length
      }))
  }
}

/** The daemon's redactor: every log line, transcript row and board page passes through it. */
export class Redactor extends Context.Tag("usine/Redactor")<Redactor, RedactorService>() {
  static readonly layer = (secrets: ReadonlyArray<string>): Layer.Layer<Redactor> =>
    Layer.succeed(Redactor, makeRedactor(secrets))
}
