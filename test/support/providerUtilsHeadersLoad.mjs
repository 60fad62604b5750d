// The load hook test/support/providerUtilsHeaders.mjs registers: provider-utils'
// ESM entry, and only that file, gets scripts/providerUtilsHeaders.mjs's rewrite.
import { fileURLToPath } from 'node:url';
import { isProviderUtilsEntry, withoutGlobalHeaders } from '../../scripts/providerUtilsHeaders.mjs';

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.startsWith('file:') || !isProviderUtilsEntry(fileURLToPath(url)) || loaded.source == null) return loaded;
  return { ...loaded, source: withoutGlobalHeaders(String(loaded.source), fileURLToPath(url)) };
}
