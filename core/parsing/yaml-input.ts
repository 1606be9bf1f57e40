/**
 * YAML input files (layer and sheet files, dex.config.yaml) parsed so that every error about
 * them is one line naming the file and, where the YAML says it, the line and column
 * (docs/interfaces.md#files). Pure: reading the file is the caller's.
 */
import { isAlias, isMap, isScalar, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import { InvalidInput } from '../run/invalid-input';

/** A parsed YAML file: its value, and where in the file each of its nodes is. */
export interface YamlInput {
  value: unknown;
  /**
   * `SOURCE:LINE:COLUMN` of the node at `path` (of the key `key` in the map there, when given),
   * or of the deepest node on the way that exists; `SOURCE` alone when there is none.
   */
  placeOf(path: readonly (string | number)[], key?: string): string;
}

/** Parses `text`; a syntax error is an InvalidInput `SOURCE:LINE:COLUMN: not valid YAML: …` in one line. */
export function parseYamlInput(text: string, source: string): YamlInput {
  const lines = new LineCounter();
  // prettyErrors off: the message is the library's sentence alone, without its code frame.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${source}:${line}:${col}`;
  };
  const [error] = doc.errors;
  if (error) throw new InvalidInput(`${at(error.pos[0])}: not valid YAML: ${yamlProblem(error.code, error.message)}`);
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    // An alias with no anchor before it, or too many aliases: found only when the value is built.
    const alias = unresolvedAlias(doc);
    throw new InvalidInput(`${alias ? at(alias) : source}: not valid YAML: ${firstLine((err as Error).message)}`);
  }
  return {
    value,
    placeOf(path, key) {
      const node = deepestNode(doc, path, key);
      return node?.range ? at(node.range[0]) : source;
    },
  };
}

/** The path a JSON Pointer (a schema error's `instancePath`, `/nodes/0/type`) points at. */
export function pointerPath(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The node at `path` (the key `key` there), or the deepest one on the way that exists. */
function deepestNode(doc: Document, path: readonly (string | number)[], key: string | undefined): Node | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = (depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true)) as Node | null | undefined;
    if (!node) continue;
    if (key !== undefined && depth === path.length && isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      if (pair && isScalar(pair.key)) return pair.key;
    }
    return node;
  }
  return undefined;
}

/** Where the first alias that names no earlier anchor starts. */
function unresolvedAlias(doc: Document): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.resolve(doc) === undefined && node.range) {
        offset = node.range[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return offset;
}

function yamlProblem(code: string, message: string): string {
  // The library's own advice (use parseAllDocuments) means nothing to a person writing the file.
  if (code === 'MULTIPLE_DOCS') return 'the file holds more than one YAML document (a second ---)';
  return firstLine(message);
}

function firstLine(text: string): string {
  return text.split('\n')[0].trim();
}
