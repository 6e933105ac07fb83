import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTENT_SECURITY_POLICY,
  decideNavigation,
  decidePermission,
  decideWindowOpen,
  externalHref,
  isLocalHost,
  isTrustedOrigin,
  originOf,
  withContentSecurityPolicy,
} from '../../../electron/security-rules.ts';

const ORIGIN = 'http://127.0.0.1:7410';

/** URLs that must never load inside the window nor reach the system browser. */
const HOSTILE: string[] = [
  'javascript:alert(1)',
  'JAVASCRIPT:alert(1)',
  'JaVaScRiPt:alert(document.cookie)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  ' javascript:alert(1)',
  '\u0000javascript:alert(1)',
  'vbscript:msgbox(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'file:///etc/passwd',
  'FILE:///C:/Windows/System32/calc.exe',
  'file://127.0.0.1/etc/passwd',
  'blob:http://127.0.0.1:7410/1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed',
  'filesystem:http://127.0.0.1:7410/temporary/x',
  'about:blank',
  'chrome://settings',
  'devtools://devtools/bundled/inspector.html',
  'view-source:http://127.0.0.1:7410/',
  'ws://127.0.0.1:7410/',
  'ftp://example.com/file',
  'mailto:someone@example.com',
  'ms-msdt:/id PCWDiagnostic',
  'smb://attacker.example/share',
  'http://127.0.0.1:7411/',
  'http://127.0.0.1/',
  'http://127.0.0.1:80/',
  'https://127.0.0.1:7410/',
  'http://localhost:7410/',
  'http://LOCALHOST:7410/',
  'http://sub.localhost:7410/',
  'http://[::1]:7410/',
  'http://0.0.0.0:7410/',
  'http://192.168.1.10:7410/',
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fe80::1]/',
  'http://[fd00::1]/',
  'http://[::ffff:7f00:1]:7410/',
  'http://printer.local/',
  'http://127.0.0.1:7410@evil.com/',
  'http://user:pass@127.0.0.1:7410/',
  'http://evil.com@127.0.0.1:7410/',
  'http://:@127.0.0.1:7410/',
  'https://user@example.com/',
  'http://127.0.0.1:7410 /',
  'http://127.0.0.1:7410/\u2028',
  'http://127.0.0.1:7410/\u200b',
  '\uFEFFhttp://127.0.0.1:7410/',
  'http://127.0.0.1:7410/ ',
  '//evil.com/',
  '/admin',
  'evil.com',
  '',
  'http://',
  'http://[::1',
  'x'.repeat(10_000),
];

/** Public links: never inside the window, but fine for the system browser. */
const EXTERNAL: string[] = [
  'https://example.com/',
  'HTTPS://EXAMPLE.COM/Docs',
  'http://127.0.0.1.evil.com:7410/',
  'http://127.0.0.1.nip.io/',
  'https://xn--80ak6aa92e.com/',
  'https://аррӏе.com/',
  'https://evil.com/#http://127.0.0.1:7410/',
  'https://evil.com/?next=http://127.0.0.1:7410/',
  'http://8.8.8.8/',
];

/** The dashboard itself, however the same origin is spelled. */
const SAME_ORIGIN: string[] = [
  'http://127.0.0.1:7410/',
  'http://127.0.0.1:7410',
  'http://127.0.0.1:7410/admin/api/session/desktop?token=abc',
  'http://127.0.0.1:7410/#/keys',
  'HTTP://127.0.0.1:7410/items',
  'http://127.0.0.1:07410/',
  'http://0x7f.0.0.1:7410/',
  'http://2130706433:7410/',
  'http://127.1:7410/',
];

describe('security rules: navigation and new windows', () => {
  for (const url of HOSTILE) {
    it(`refuses ${JSON.stringify(url.slice(0, 60))}`, () => {
      assert.equal(decideNavigation(url, ORIGIN), 'deny');
      assert.equal(decideWindowOpen(url, ORIGIN), 'deny');
      assert.equal(isTrustedOrigin(url, ORIGIN), false);
      assert.throws(() => externalHref(url));
    });
  }
  for (const url of EXTERNAL) {
    it(`sends ${JSON.stringify(url)} to the system browser`, () => {
      assert.equal(decideNavigation(url, ORIGIN), 'open-external');
      assert.equal(decideWindowOpen(url, ORIGIN), 'open-external');
      assert.equal(isTrustedOrigin(url, ORIGIN), false);
    });
  }
  for (const url of SAME_ORIGIN) {
    it(`allows the dashboard's own ${JSON.stringify(url)}`, () => {
      assert.equal(decideNavigation(url, ORIGIN), 'allow');
      assert.equal(decideWindowOpen(url, ORIGIN), 'allow');
    });
  }

  it('hands the normalized URL, never the raw string, to the system browser', () => {
    assert.equal(externalHref('HTTPS://EXAMPLE.COM/a/../b'), 'https://example.com/b');
    assert.equal(externalHref('https://аррӏе.com/'), 'https://xn--80ak6aa92e.com/');
  });

  it('is not fooled by values that are not strings', () => {
    for (const value of [undefined, null, 42, { href: ORIGIN }, new URL(ORIGIN), [ORIGIN]]) {
      assert.equal(decideNavigation(value, ORIGIN), 'deny');
      assert.equal(isTrustedOrigin(value, ORIGIN), false);
    }
  });

  it('follows the server to another port when it runs on one', () => {
    const other = originOf('http://127.0.0.1:51234');
    assert.equal(decideNavigation('http://127.0.0.1:51234/keys', other), 'allow');
    assert.equal(decideNavigation('http://127.0.0.1:7410/keys', other), 'deny');
  });

  it('accepts only http(s) server URLs as the trusted origin', () => {
    assert.equal(originOf('http://127.0.0.1:7410'), ORIGIN);
    assert.equal(originOf('http://[::1]:7410'), 'http://[::1]:7410');
    for (const bad of ['file:///x', 'javascript:alert(1)', 'not a url', ' http://127.0.0.1:7410']) {
      assert.throws(() => originOf(bad));
    }
  });

  it('knows local and private hosts', () => {
    for (const host of ['localhost', 'a.localhost', '127.0.0.1', '127.255.0.1', '10.1.2.3', '172.31.0.1', '192.168.0.1', '169.254.1.1', '0.0.0.0', '[::1]', '[::]', '[fe80::1]', '[fc00::1]', 'nas.local']) {
      assert.equal(isLocalHost(host), true, host);
    }
    for (const host of ['example.com', '8.8.8.8', '172.32.0.1', '11.0.0.1', '[2001:db8::1]', 'localhost.example.com', 'fd.example.com']) {
      assert.equal(isLocalHost(host), false, host);
    }
  });
});

describe('security rules: permissions', () => {
  const permissions = [
    'media', 'geolocation', 'notifications', 'midi', 'midiSysex', 'pointerLock', 'fullscreen', 'openExternal',
    'display-capture', 'clipboard-read', 'window-management', 'fileSystem', 'hid', 'serial', 'usb', 'idle-detection',
    'storage-access', 'top-level-storage-access', 'keyboardLock', 'speaker-selection', 'unknown', 'mediaKeySystem',
  ];
  for (const permission of permissions) {
    it(`denies ${permission}, even to the dashboard`, () => {
      assert.equal(decidePermission(permission, `${ORIGIN}/`, ORIGIN), 'deny');
      assert.equal(decidePermission(permission, 'https://example.com/', ORIGIN), 'deny');
    });
  }
  it('lets only the dashboard write text to the clipboard (its copy buttons)', () => {
    assert.equal(decidePermission('clipboard-sanitized-write', `${ORIGIN}/keys`, ORIGIN), 'allow');
    assert.equal(decidePermission('clipboard-sanitized-write', ORIGIN, ORIGIN), 'allow');
    for (const url of [...HOSTILE, ...EXTERNAL]) {
      assert.equal(decidePermission('clipboard-sanitized-write', url, ORIGIN), 'deny', url);
    }
  });
});

describe('security rules: content security policy', () => {
  it('allows only the server’s own scripts and forbids plugins, framing and base changes', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    assert.deepEqual(directives.get('default-src'), ["'self'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('object-src'), ["'none'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
    assert.deepEqual(directives.get('base-uri'), ["'none'"]);
    assert.deepEqual(directives.get('connect-src'), ["'self'"]);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-eval|\*|http:|https:/);
    assert.doesNotMatch(directives.get('script-src')!.join(' '), /unsafe-inline/);
  });

  it('replaces any policy the server sent on the dashboard origin and leaves other responses alone', () => {
    const headers = { 'content-type': ['text/html'], 'content-security-policy': ["default-src *"] };
    assert.deepEqual(withContentSecurityPolicy(`${ORIGIN}/`, headers, ORIGIN), {
      'content-type': ['text/html'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
    });
    assert.equal(withContentSecurityPolicy('https://example.com/', headers, ORIGIN), headers);
  });
});
