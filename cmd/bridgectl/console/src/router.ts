import { signal } from '@preact/signals';

/** The page the location's hash names: "#/sessions/<id>" is ["sessions", "<id>"]. */
export const route = signal<string[]>(parse());

function parse(): string[] {
  return location.hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

addEventListener('hashchange', () => {
  route.value = parse();
});

export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;
