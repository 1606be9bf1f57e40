import { homedir } from 'node:os';
import { join } from 'node:path';
import { readText } from '../ecosystem-plan';

/** One `<mirror>` of a Maven settings file: all of it setup takes from the owner's settings. */
export interface MavenMirror {
  id: string;
  mirrorOf: string;
  url: string;
  /** A mirror that refuses what it matches (Maven's own default blocks plain-HTTP repositories). */
  blocked?: boolean;
}

const XML_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
const unescapeXml = (text: string): string => text.replace(/&(amp|lt|gt|quot|apos);/g, (entity) => XML_ENTITIES[entity]);
const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => Object.entries(XML_ENTITIES).find(([, v]) => v === c)![0]);

/** The text of each `<tag>…</tag>` of `xml`, comments dropped. */
const elements = (xml: string, tag: string): string[] =>
  [...xml.replace(/<!--[\s\S]*?-->/g, '').matchAll(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]);

/** The value of `<tag>` in `xml`, trimmed and unescaped; undefined when absent. */
const value = (xml: string, tag: string): string | undefined => {
  const found = elements(xml, tag)[0];
  return found === undefined ? undefined : unescapeXml(found.trim());
};

/** `url` with `${env.NAME}` taken from `env` and without a user or password; undefined when a property is left or it is no http(s) URL. */
function plainUrl(url: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const expanded = url.replace(/\$\{env\.(\w+)\}/g, (whole, name: string) => env[name] ?? whole);
  if (expanded.includes('${')) return undefined;
  try {
    const parsed = new URL(expanded);
    if (!/^https?:$/.test(parsed.protocol)) return undefined;
    parsed.username = '';
    parsed.password = '';
    return parsed.href;
  } catch {
    return undefined;
  }
}

/** The mirrors of a settings file's text: id, mirrorOf and a plain URL each, nothing else (never `<servers>`). */
export function mirrorsIn(xml: string, env: NodeJS.ProcessEnv = process.env): MavenMirror[] {
  return elements(elements(xml, 'mirrors').join(''), 'mirror').flatMap((mirror) => {
    const [id, mirrorOf, url] = [value(mirror, 'id'), value(mirror, 'mirrorOf'), value(mirror, 'url')];
    const plain = url && plainUrl(url, env);
    const blocked = value(mirror, 'blocked') === 'true';
    return id && mirrorOf && plain ? [{ id, mirrorOf, url: plain, ...(blocked ? { blocked } : {}) }] : [];
  });
}

/**
 * The owner's mirrors, as Maven would merge them (docs/real-repositories.md#maven-and-gradle): the
 * user's settings (`~/.m2/settings.xml`) first, then the installation's global ones for ids the
 * user's do not have.
 */
export function ownerMirrors(globalSettings: string | undefined, home: string = homedir()): MavenMirror[] {
  const user = mirrorsIn(readText(join(home, '.m2', 'settings.xml')) ?? '');
  const global = globalSettings ? mirrorsIn(readText(globalSettings) ?? '') : [];
  return [...user, ...global.filter((mirror) => !user.some((own) => own.id === mirror.id))];
}

/**
 * The `<mirrors>` of the settings file setup writes (jvm-setup.sh), which setup and verify read
 * instead of the owner's: the mirrors alone, never the owner's `<servers>`; empty when there are none.
 */
export function mirrorsXml(mirrors: MavenMirror[]): string {
  if (!mirrors.length) return '';
  const entries = mirrors.map(
    (m) => `    <mirror><id>${escapeXml(m.id)}</id><mirrorOf>${escapeXml(m.mirrorOf)}</mirrorOf><url>${escapeXml(m.url)}</url>${m.blocked ? '<blocked>true</blocked>' : ''}</mirror>\n`,
  );
  return `  <mirrors>\n${entries.join('')}  </mirrors>\n`;
}

/**
 * The host names of the repositories the poms' texts name (`<repositories>`, `<pluginRepositories>`),
 * beside Maven Central: without a port, so that no pom (which the agent may edit) opens an address of
 * this host to setup (docs/security.md).
 */
export function pomRepositoryHosts(poms: string[]): string[] {
  const urls = poms.flatMap((pom) => ['repositories', 'pluginRepositories'].flatMap((tag) => elements(pom, tag)).flatMap((block) => elements(block, 'url')));
  return [...new Set(urls.map((url) => plainUrl(unescapeXml(url.trim()), {})).filter((url): url is string => !!url).map((url) => new URL(url).hostname))];
}
