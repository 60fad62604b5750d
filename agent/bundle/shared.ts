// The modules the agent core lends to its lazy bundles (esbuild.mjs builds
// those with these specifiers left as `require` calls): one copy of zod and of
// the ai SDK's provider code per process, whichever provider loads. esbuild.mjs
// reads the keys below (one `'specifier': namespace,` per line) and fails the
// build if a lazy bundle requires a package the core does not lend.
import * as zod from 'zod';
import * as zodV4 from 'zod/v4';
import * as zodV3 from 'zod/v3';
import * as provider from '@ai-sdk/provider';
import * as providerUtils from '@ai-sdk/provider-utils';
import type { SharedModules } from '../cli/compileCache';

export const sharedModules: SharedModules = {
  'zod': zod,
  'zod/v4': zodV4,
  'zod/v3': zodV3,
  '@ai-sdk/provider': provider,
  '@ai-sdk/provider-utils': providerUtils,
};
