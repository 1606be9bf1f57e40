import { parseOptionsOnly, type Output } from '../cli-context';
import { connectSaying } from '../run/slow-wait';
import { missingSearchAttributes, registerSearchAttributes } from '../server/search-attribute-setup';
import { readSettings } from '../settings';
import { DEX_SEARCH_ATTRIBUTES } from '../../core/run/search-attributes';

/**
 * `dex setup-namespace [--namespace NS]`: registers dex's search attributes on a namespace of
 * any Temporal server (self-hosted or Cloud, with an operator's credentials), so runs there can
 * carry them; on dex's embedded server they are registered at start.
 */
export async function setupNamespaceCommand(argv: string[], out: Output): Promise<number> {
  const values = parseOptionsOnly(argv, 'setup-namespace');
  const settings = { ...readSettings(), ...(values.namespace ? { namespace: values.namespace } : {}) };
  const conns = await connectSaying(settings, out.info);
  try {
    const added = await registerSearchAttributes(conns.connection, settings.namespace);
    const missing = (await missingSearchAttributes(conns.connection, settings.namespace)) ?? [];
    const names = DEX_SEARCH_ATTRIBUTES.map((key) => `${key.name} (${key.type.toLowerCase()})`);
    const head = added.length ? `registered on ${settings.namespace}: ${added.join(', ')}` : `${settings.namespace} already has dex's search attributes`;
    out.result([head, ...names.map((n) => `  ${n}`)].join('\n'), { namespace: settings.namespace, added, missing, attributes: names });
    return missing.length ? 1 : 0;
  } finally {
    await conns.close();
  }
}
