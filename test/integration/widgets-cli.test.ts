import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import type { AdminWidget } from '../../common/contract/admin.ts';
import { WIDGET_ID_PATTERN } from '../../common/contract/widget.ts';
import { CLI, cliEnv } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

describe('localiq widgets (the visitor assistant from the command line)', () => {
  const dataDir = tempDataDir();
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [CLI, 'widgets', ...args], { env: cliEnv(dataDir, { LOCALIQ_PORT: '7410', ...env }), encoding: 'utf8', timeout: 60_000 });
  const json = <T>(args: string[]): T => {
    const res = run([...args, '--json']);
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout) as T;
  };
  const create = ['create', '--name', 'Bakery shop', '--knowledge-base', 'kb-main', '--origin', 'https://shop.example'];

  it('creates a widget and prints its id, the snippet to paste and the hosted page', () => {
    const res = run([...create, '--origin', 'https://*.example.com', '--greeting', 'Moin!', '--fallback', 'Call us.']);
    assert.equal(res.status, 0, res.stderr);
    const id = /Created widget (wgt_\w+) "Bakery shop" for kb-main, allowed on https:\/\/shop\.example, https:\/\/\*\.example\.com\./.exec(res.stdout)?.[1];
    assert.match(id ?? '', WIDGET_ID_PATTERN);
    assert.ok(res.stdout.includes(`<script src="http://127.0.0.1:7410/widget.js" data-widget="${id}" async></script>`), res.stdout);
    assert.ok(res.stdout.includes(`Hosted chat page: http://127.0.0.1:7410/w/${id}`));
    assert.match(res.stderr, /no item was pushed to "kb-main" yet/, 'a knowledge base nobody pushed to is pointed out');
  });

  it('prints the widget as JSON with every setting, and takes the optional fields', () => {
    const widget = json<AdminWidget>([
      ...create,
      '--knowledge-base',
      'kb-faq',
      '--starter',
      'When are you open?',
      '--starter',
      'Do you deliver?',
      '--theme-color',
      '#aa3300',
      '--position',
      'bottom-left',
      '--daily-limit',
      '300',
    ]);
    assert.deepEqual(widget.knowledgeBaseIds, ['kb-main', 'kb-faq']);
    assert.deepEqual(widget.starterQuestions, ['When are you open?', 'Do you deliver?']);
    assert.equal(widget.themeColor, '#aa3300');
    assert.equal(widget.position, 'bottom-left');
    assert.deepEqual(widget.limits, { visitorQuestionsPerMinute: 6, widgetQuestionsPerMinute: 60, dailyQuestions: 300 });
    assert.equal(widget.enabled, true);
    assert.equal(widget.questionsToday, 0);
    assert.equal(widget.snippet, `<script src="http://127.0.0.1:7410/widget.js" data-widget="${widget.id}" async></script>`);
  });

  it('names this machine in the snippet when LocalIQ listens on every interface', () => {
    const res = run(['list', '--json'], { LOCALIQ_HOST: '0.0.0.0' });
    const [first] = JSON.parse(res.stdout) as AdminWidget[];
    assert.ok(first!.snippet.startsWith('<script src="http://'));
    assert.ok(!first!.snippet.includes('0.0.0.0'), first!.snippet);
  });

  it('lists widgets as a table and as JSON', () => {
    const res = run(['list']);
    assert.equal(res.status, 0, res.stderr);
    const [header, ...rows] = res.stdout.trim().split('\n');
    assert.equal(header, 'id\tstate\tname\tknowledge bases\torigins\tquestions today');
    assert.equal(rows.length, 2);
    assert.match(rows[0]!, /^wgt_\w{20}\ton\tBakery shop\tkb-main\thttps:\/\/shop\.example,https:\/\/\*\.example\.com\t0\/2000$/);
    assert.equal(json<AdminWidget[]>(['list']).length, 2);
  });

  it('updates only the options given, disables, enables and deletes', () => {
    const [widget] = json<AdminWidget[]>(['list']);
    const id = widget!.id;
    const updated = json<AdminWidget>(['update', id, '--name', 'Renamed', '--origin', 'https://new.example', '--daily-limit', '50']);
    assert.equal(updated.name, 'Renamed');
    assert.deepEqual(updated.allowedOrigins, ['https://new.example'], 'a repeated option replaces the list');
    assert.deepEqual(updated.knowledgeBaseIds, widget!.knowledgeBaseIds);
    assert.equal(updated.greeting, 'Moin!');
    assert.equal(updated.limits.dailyQuestions, 50);
    assert.equal(updated.limits.visitorQuestionsPerMinute, 6);
    assert.equal(updated.sendPageUrl, true, "a widget sends the visitor's page address by default");
    assert.equal(json<AdminWidget>(['update', id, '--page-url', 'off']).sendPageUrl, false);

    const disabled = run(['disable', id]);
    assert.equal(disabled.status, 0, disabled.stderr);
    assert.match(disabled.stdout, new RegExp(`Disabled widget ${id}`));
    assert.equal(json<AdminWidget[]>(['list']).find((w) => w.id === id)!.enabled, false);
    assert.match(run(['list']).stdout, new RegExp(`${id}\\toff\\tRenamed`));
    assert.equal(json<AdminWidget>(['update', id, '--enable']).enabled, true);

    const deleted = run(['delete', id]);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.ok(!json<AdminWidget[]>(['list']).some((w) => w.id === id));
    for (const args of [['delete', id], ['disable', id], ['update', id, '--name', 'x']]) {
      const res = run(args);
      assert.equal(res.status, 1, args.join(' '));
      assert.match(res.stderr, new RegExp(`No widget with id ${id}`));
    }
  });

  it('refuses bad options with a message naming them and exit code 2, changing nothing', () => {
    const before = run(['list', '--json']).stdout;
    const cases: Array<[string[], RegExp]> = [
      [['create', '--name', 'x'], /widgets create needs --knowledge-base, --origin\./],
      [[...create, '--origin', 'https://shop.example/path'], /--origin "https:\/\/shop\.example\/path": an origin is a scheme, a host/],
      [[...create, '--theme-color', 'red'], /--theme-color: a colour like #1a73e8/],
      [[...create, '--position', 'top'], /--position takes bottom-right or bottom-left\./],
      [[...create, '--daily-limit', 'lots'], /--daily-limit takes a whole number/],
      [[...create, '--daily-limit', '0'], /--daily-limit: /],
      [[...create, '--page-url', 'maybe'], /--page-url takes on .* or off\./],
      [[...create, '--enable'], /widgets create makes an enabled widget/],
      [[...create, '--colour', '#fff'], /Unknown option '--colour'/],
      [['update'], /widgets update needs the widget id/],
      [['update', 'wgt_00000000000000000000'], /widgets update needs at least one change/],
      [['update', 'wgt_00000000000000000000', '--enable', '--disable'], /Give --enable or --disable, not both\./],
      [['disable', 'wgt_00000000000000000000', '--origin', 'https://x.example'], /widgets disable takes no --origin\./],
      [['delete', 'wgt_00000000000000000000', 'extra'], /widgets delete does not take "extra"/],
      [['list', '--name', 'x'], /widgets list takes no --name\./],
      [['frobnicate'], /widgets takes create, list, update, disable, delete\./],
      [[], /widgets takes create, list, update, disable, delete\./],
    ];
    for (const [args, message] of cases) {
      const res = run(args);
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, message, args.join(' '));
      assert.match(res.stderr, /Usage: localiq <command>/);
    }
    assert.equal(run(['list', '--json']).stdout, before);
  });
});
