/**
 * `@symbol` references in sheet statements: finding them and substituting produced values.
 * Pure: the client finds them to plan, the workflow substitutes them before a statement runs.
 */
import type { StatementAction } from './sheet-types';

/**
 * `@name` not glued to a word before it (so `me@example.com` is no reference), or `@@`, which
 * stands for a literal `@`.
 */
const REFERENCE = /(?<![A-Za-z0-9_])@(@|[A-Za-z_][A-Za-z0-9_]*)/g;

/** The names (without `@`) referenced in `text`, each once, in order of first use. */
export function symbolsIn(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(REFERENCE)) if (m[1] !== '@' && !names.includes(m[1])) names.push(m[1]);
  return names;
}

/** A value as one word for `/bin/sh`: single-quoted, so nothing in it is run or expanded. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The value as literal text inside a double-quoted shell string. */
function doubleQuoted(value: string): string {
  return value.replace(/["\\$`]/g, '\\$&');
}

/** `text` with each reference replaced by what `replace` gives for its name (`@` for `@@`). */
export function rewriteText(text: string, replace: (name: string) => string): string {
  return text.replace(REFERENCE, (_, name: string) => replace(name));
}

/** `text` with each `@name` replaced by its value as is; an unknown name is an error. */
export function substituteText(text: string, values: Readonly<Record<string, string>>): string {
  return rewriteText(text, (name) => (name === '@' ? '@' : valueOf(values, name)));
}

function valueOf(values: Readonly<Record<string, string>>, name: string): string {
  const value = values[name];
  if (value === undefined) throw new Error(`@${name} has no value`);
  return value;
}

/**
 * `value` written so that a later substitution reads it back as exactly `value`: each `@` that
 * would start a reference (or `@@`) is doubled; one glued to a word is no reference and stays.
 */
export function escapeReferences(value: string): string {
  return value.replace(/(?<![A-Za-z0-9_])@/g, '@@');
}

/** The quotes a reference in a shell command stands in. */
type ShellQuoting = 'none' | 'single' | 'double';

/** `value` as literal text where it stands: bare, one single-quoted word; inside '…' or "…", escaped for that quoting. */
export function quoteFor(quoting: ShellQuoting, value: string): string {
  return quoting === 'double' ? doubleQuoted(value) : quoting === 'single' ? `'${shellQuote(value)}'` : shellQuote(value);
}

/**
 * A shell command with each reference replaced by what `replace` gives for its name (`@` for
 * `@@`) and the quotes it stands in; a backslash-escaped `@` is no reference.
 */
export function rewriteShell(command: string, replace: (name: string, quoting: ShellQuoting) => string): string {
  const reference = /@(@|[A-Za-z_][A-Za-z0-9_]*)/y;
  let out = '';
  let quote: ShellQuoting = 'none';
  for (let i = 0; i < command.length; ) {
    const c = command[i];
    reference.lastIndex = i;
    const m = c === '@' && !/[A-Za-z0-9_]/.test(command[i - 1] ?? '') ? reference.exec(command) : null;
    if (m) {
      out += replace(m[1], quote);
      i += m[0].length;
      continue;
    }
    if (c === '\\' && quote !== 'single') {
      out += command.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === "'" && quote !== 'double') quote = quote === 'single' ? 'none' : 'single';
    if (c === '"' && quote !== 'single') quote = quote === 'double' ? 'none' : 'double';
    out += c;
    i++;
  }
  return out;
}

/**
 * A shell command with each `@name` replaced by its value as literal text, whatever quotes the
 * reference stands in (quoteFor). A value (say, a model's reply) can never run or expand anything.
 */
function substituteShell(command: string, values: Readonly<Record<string, string>>): string {
  return rewriteShell(command, (name, quoting) => (name === '@' ? '@' : quoteFor(quoting, valueOf(values, name))));
}

/** The action with produced values in place of its references (shell commands quoted: see substituteShell). */
export function substituteAction(action: StatementAction, values: Readonly<Record<string, string>>): StatementAction {
  switch (action.run) {
    case 'shell':
      return { ...action, command: substituteShell(action.command, values) };
    case 'llm':
      return { ...action, prompt: substituteText(action.prompt, values) };
    case 'task':
      return {
        ...action,
        task: { ...action.task, title: substituteText(action.task.title, values), description: substituteText(action.task.description, values) },
      };
  }
}
