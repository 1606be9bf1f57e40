import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readText } from '../ecosystem-plan';

/** One command line of a tox environment, its substitutions resolved, split into words. */
export type CommandWords = string[];

/** The sections of an INI text as configparser reads them: `key = value`, indented lines continuing the value. */
function iniSections(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let section: Map<string, string> | undefined;
  let key: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || /^\s*[#;]/.test(line)) continue;
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) {
      section = new Map();
      sections.set(header[1].trim(), section);
      key = undefined;
    } else if (/^\s/.test(line) && section && key) {
      section.set(key, `${section.get(key)}\n${line.trim()}`);
    } else {
      const pair = /^([^=\s][^=]*?)\s*=\s*(.*)$/.exec(line);
      if (pair && section) section.set((key = pair[1].trim()), pair[2].trim());
    }
  }
  return sections;
}

/** tox's INI configuration: `tox.ini`, `setup.cfg` with `[tox:tox]`, or `legacy_tox_ini` in pyproject.toml. */
function toxIni(dir: string): string | undefined {
  const ini = readText(join(dir, 'tox.ini'));
  if (ini !== undefined) return ini;
  const cfg = readText(join(dir, 'setup.cfg'));
  if (cfg && /^\[tox:tox\]/m.test(cfg)) return cfg;
  return /^legacy_tox_ini\s*=\s*("""|''')([\s\S]*?)\1/m.exec(readText(join(dir, 'pyproject.toml')) ?? '')?.[2];
}

/** `[tool.tox.env_run_base] commands = [["pytest", "{posargs}"]]` of pyproject.toml, when it reads as JSON. */
function nativeToxCommands(dir: string): string[] {
  const base = /^\[tool\.tox\.env_run_base\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(readText(join(dir, 'pyproject.toml')) ?? '')?.[1] ?? '';
  const list = /^commands\s*=\s*(\[[\s\S]*?\]\s*\])/m.exec(base)?.[1];
  try {
    const parsed = JSON.parse(list?.replace(/,(\s*\])/g, '$1') ?? '[]') as unknown;
    return Array.isArray(parsed) ? parsed.filter(Array.isArray).map((words: unknown[]) => words.filter((w) => typeof w === 'string').join(' ')) : [];
  } catch {
    return [];
  }
}

/**
 * A word of a tox command with tox's substitutions resolved as they would be run from the
 * worktree: `{toxinidir}`/`{tox_root}` → `.`, `{envpython}` → `python`, the package in
 * `{envsitepackagesdir}` → the worktree's (setup installs it editable). Undefined for a word
 * naming anything else of tox's (its environment's folders): that word is left out.
 */
function toxWord(dir: string, word: string): string | undefined {
  const site = /^\{(envsitepackagesdir|env_site_packages_dir)\}\/(\w+)\/?$/.exec(word);
  if (site) return [`src/${site[2]}`, site[2]].find((path) => existsSync(join(dir, path)));
  const resolved = word.replace(/\{(toxinidir|tox_root)\}/g, '.').replace(/\{(envpython|env_python)\}/g, 'python');
  return resolved.includes('{') ? undefined : resolved.replace(/^\.\/(?=.)/, '');
}

/** Shell-like words of `line` (quotes removed), cut at the first `&&`, `||`, `;`, `|` or redirection. */
export function commandWords(line: string): CommandWords {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(&&|\|\||[;|<>])|(\S+?)(?=\s|$|"|'|&&|\|\||[;|<>])/g)) {
    if (match[3]) break;
    words.push(match[1] ?? match[2] ?? match[4]);
  }
  return words;
}

/** The logical lines of a multi-line value: `\` at a line's end continues it. */
export const logicalLines = (text: string): string[] => text.replace(/\\\r?\n\s*/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/**
 * The command lines of tox's test environments, in order: `[testenv]`'s, then each
 * `[testenv:name]`'s, substitutions resolved, `{posargs}` as its default (empty when it has none).
 * Empty when tox is not configured, or when the environment changes into a folder of the
 * worktree (`changedir = tests`): its relative paths would not hold from the root.
 */
export function toxCommands(dir: string): CommandWords[] {
  const ini = toxIni(dir);
  const lines: { line: string; changedir?: string }[] = [];
  if (ini !== undefined) {
    const sections = iniSections(ini);
    for (const [name, section] of sections) {
      if (name !== 'testenv' && !name.startsWith('testenv:')) continue;
      const changedir = section.get('changedir') ?? sections.get('testenv')?.get('changedir');
      for (const line of logicalLines(section.get('commands') ?? '')) lines.push({ line, changedir });
    }
  } else {
    for (const line of nativeToxCommands(dir)) lines.push({ line });
  }
  return lines
    .filter(({ changedir }) => !movesIntoWorktree(dir, changedir))
    .map(({ line }) =>
      commandWords(
        line
          .replace(/^[\w.,!-]+:\s+/, '') // a factor's condition (`py38: pytest`)
          .replace(/^-\s*/, '') // tox's "ignore this command's exit code"
          .replace(/\{posargs(?::([^}]*))?\}|(^|\s)\[\](?=\s|$)/g, (_, fallback: string | undefined) => ` ${fallback ?? ''} `),
      )
        .map((word) => toxWord(dir, word))
        .filter((word): word is string => word !== undefined),
    );
}

/** True when tox's `changedir` is a folder of the worktree other than its root (not `.tox`, not one of tox's own). */
function movesIntoWorktree(dir: string, changedir: string | undefined): boolean {
  const path = changedir?.replace(/\{(toxinidir|tox_root)\}/g, '.').replace(/^(\.\/)+|\/$/g, '');
  if (!path || path === '.' || path.includes('{') || /^\.tox(\/|$)/.test(path)) return false;
  try {
    return statSync(join(dir, path)).isDirectory();
  } catch {
    return false;
  }
}
