// Hides secrets in ACP traffic before it is shown: values of secret-looking
// keys (api keys, tokens, passwords, auth headers) and key-shaped strings
// anywhere. Pure: no vscode import.

const SECRET_KEY = /(api[_-]?key|token|secret|password|passwd|authorization|bearer|credential|cookie|private[_-]?key)/i;
const SECRET_VALUE = [
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, // Anthropic / OpenAI style keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bBearer\s+[A-Za-z0-9._~+/=-]{12,}/gi,
];
export const REDACTED = '«redacted»';

/** A deep copy of `value` with secrets replaced; `extraSecrets` are exact strings to hide too. */
export function redact(value: unknown, extraSecrets: readonly string[] = []): unknown {
  const exact = extraSecrets.filter((s) => s.length >= 8);
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key !== undefined && SECRET_KEY.test(key) && v.length > 0 ? REDACTED : redactText(v, exact);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (typeof v === 'object' && v !== null) {
      // {name, value} pairs (ACP env and headers) carry the secret's name in `name`.
      const record = v as Record<string, unknown>;
      const pairName = typeof record.name === 'string' && SECRET_KEY.test(record.name);
      return Object.fromEntries(
        Object.entries(record).map(([k, x]) => [k, pairName && k === 'value' && typeof x === 'string' ? REDACTED : walk(x, k)]),
      );
    }
    return v;
  };
  return walk(value);
}

export function redactText(text: string, exactSecrets: readonly string[] = []): string {
  let out = text;
  for (const s of exactSecrets) if (s.length >= 8) out = out.split(s).join(REDACTED);
  for (const pattern of SECRET_VALUE) out = out.replace(pattern, REDACTED);
  return out;
}
