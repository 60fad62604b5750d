// ACP prompt blocks → the model's user message. Text, images and embedded
// text resources pass through; links become a mention the model can follow
// with its tools.
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import type { UserContent } from 'ai';

type UserPart = Exclude<UserContent, string>[number];

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

function toPart(block: ContentBlock): UserPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      // Only base64 data, as ACP says: the model SDK's conversion takes a string that parses as a
      // URL for a link, and would fetch it (from this machine) for a model that cannot.
      return BASE64.test(block.data)
        ? { type: 'image', image: block.data, mediaType: block.mimeType }
        : { type: 'text', text: '[an image that was not base64 data: not shown]' };
    case 'resource_link':
      return { type: 'text', text: `[@${block.name}](${block.uri})` };
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource) return { type: 'text', text: `<context uri="${resource.uri}">\n${resource.text}\n</context>` };
      return { type: 'text', text: `[binary attachment ${resource.uri} (${resource.mimeType ?? 'unknown type'}) not shown]` };
    }
    default:
      return undefined;
  }
}

export function toUserContent(prompt: ContentBlock[]): UserContent {
  return prompt.map(toPart).filter((part): part is UserPart => part !== undefined);
}
