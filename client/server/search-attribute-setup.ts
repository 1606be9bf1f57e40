import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DEX_SEARCH_ATTRIBUTES } from '../../core/run/search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;

/** The server's index types of dex's search attribute types. */
const INDEX_TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
};

/** dex's search attributes as the operator service takes them: name → index type. */
function dexSearchAttributeTypes(): Record<string, temporal.api.enums.v1.IndexedValueType> {
  return Object.fromEntries(DEX_SEARCH_ATTRIBUTES.map((key) => [key.name, INDEX_TYPES[key.type]]));
}

/** The names of dex's search attributes that `namespace` lacks; undefined when the server cannot say. */
export async function missingSearchAttributes(connection: Connection, namespace: string): Promise<string[] | undefined> {
  try {
    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    const known = { ...listed.customAttributes, ...listed.systemAttributes };
    return DEX_SEARCH_ATTRIBUTES.map((key) => key.name).filter((name) => !(name in known));
  } catch {
    return undefined;
  }
}

/**
 * Registers dex's search attributes on `namespace` (docs/interfaces.md): what `dex
 * setup-namespace` does for a cluster, and what dex does itself on servers it manages.
 * Registering attributes that exist already changes nothing.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const missing = (await missingSearchAttributes(connection, namespace)) ?? DEX_SEARCH_ATTRIBUTES.map((key) => key.name);
  if (missing.length === 0) return [];
  const all = dexSearchAttributeTypes();
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((name) => [name, all[name]])),
  });
  return missing;
}
