// Inline style through the CSSOM. The CSP has no 'unsafe-inline' for styles,
// which blocks style attributes (including lit's styleMap on first render);
// setting properties on element.style is allowed.
import { ref } from 'lit/directives/ref.js';

export function cssProps(props: Record<string, string>): ReturnType<typeof ref> {
  return ref((element) => {
    if (!(element instanceof HTMLElement)) return;
    for (const [name, value] of Object.entries(props)) element.style.setProperty(name, value);
  });
}
