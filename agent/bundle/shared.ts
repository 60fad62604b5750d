// The modules the agent core lends to its lazy bundles (esbuild.mjs builds
// those with these specifiers left as `require` calls): one copy of zod and of
// the ai SDK's provider code per process, whichever provider loads. esbuild.mjs
// reads the keys below (one `'specifier': namespace,` per line) and fails the
// build if a lazy bundle requires a package the core does not lend, or
// carries a copy of the core's zod of its own.
//
// Only what a lazy bundle requires is lent: a namespace lent here is
// evaluated whole at load. `zod` and `zod/v3` were lent and none required
// them; zod/v3 alone (its classes, 109 exports; provider-utils takes one enum
// from it) and the 260 getters of `zod`'s namespace cost every start ~1 ms.
import * as zodV4 from 'zod/v4';
import * as provider from '@ai-sdk/provider';
import * as providerUtils from '@ai-sdk/provider-utils';
import type { SharedModules } from '../cli/compileCache';

export const sharedModules: SharedModules = {
  'zod/v4': zodV4,
  '@ai-sdk/provider': provider,
  '@ai-sdk/provider-utils': providerUtils,
};
