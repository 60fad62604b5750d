// A LanguageModelV3 test double for the step driver's tests: doStream
// records the options it was called with and replays a scripted part list
// (optionally failing the stream after some parts, or failing the call).
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';

export interface Script {
  parts: LanguageModelV3StreamPart[];
  /** The stream errors with this after all `parts` (instead of closing). */
  streamThrows?: Error;
  /** doStream itself rejects with these, one per call, before a call succeeds. */
  callFails?: unknown[];
}

export interface ScriptedModel extends LanguageModelV3 {
  calls: LanguageModelV3CallOptions[];
}

export function scriptedModel(script: Script, supportedUrls: Record<string, RegExp[]> = {}): ScriptedModel {
  const calls: LanguageModelV3CallOptions[] = [];
  const failures = [...(script.callFails ?? [])];
  return {
    specificationVersion: 'v3',
    provider: 'test',
    modelId: 'scripted',
    supportedUrls,
    calls,
    async doGenerate() {
      throw new Error('doGenerate is not scripted');
    },
    async doStream(options) {
      calls.push(options);
      if (failures.length > 0) throw failures.shift();
      let index = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        pull(controller) {
          if (index < script.parts.length) {
            const part = script.parts[index++]!;
            // A fresh copy per stream (the consumer may keep it), but an error keeps its class and identity.
            controller.enqueue(part.type === 'error' ? part : structuredClone(part));
          }
          else if (script.streamThrows) controller.error(script.streamThrows);
          else controller.close();
        },
      });
      return { stream };
    },
  };
}

/** A V3 usage object. */
export function v3Usage(input?: number, output?: number, extra: { cacheRead?: number; reasoning?: number } = {}) {
  return {
    inputTokens: { total: input, noCache: input === undefined ? undefined : input - (extra.cacheRead ?? 0), cacheRead: extra.cacheRead, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: extra.reasoning },
  };
}
