import { useEffect, useState } from 'react';

/** The app routes with the URL hash (`#/keys`), so the server needs no fallback route. */
export function currentRoute(): string[] {
  const hash = window.location.hash.replace(/^#\/?/, '');
  return hash.split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}

export function navigate(...parts: string[]): void {
  window.location.hash = href(...parts).slice(1);
}
