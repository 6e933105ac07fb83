import { type ComponentType, lazy } from 'react';
import { ChatScreen } from './chat/chat.tsx';
import { ConsoleScreen } from './console/console.tsx';
import { ContentGapsScreen } from './content-gaps/content-gaps.tsx';
import { ConversationsScreen } from './conversations/conversations.tsx';
import { ImportScreen } from './import/import.tsx';
import { InboxScreen } from './inbox/inbox.tsx';
import { KeysScreen } from './keys/keys.tsx';
import { KnowledgeScreen } from './knowledge/knowledge.tsx';
import { MonitorScreen } from './ingestion/monitor.tsx';
import { SettingsScreen } from './settings/settings.tsx';
import { SourcesScreen } from './sources/sources.tsx';
import { WidgetsScreen } from './widgets/widgets.tsx';

/**
 * The dashboard's screens, in navigation order. Adding a screen is one entry here: `path` is the
 * first segment of the hash route (`#/keys`), and the screen gets the whole route.
 */
export type Screen = { path: string; label: string; component: ComponentType<{ route: string[] }> };

export const SCREENS: Screen[] = [
  { path: 'knowledge', label: 'Knowledge', component: KnowledgeScreen },
  { path: 'ingestion', label: 'Ingestion', component: MonitorScreen },
  { path: 'chat', label: 'Chat', component: ChatScreen },
  { path: 'widgets', label: 'Widgets', component: WidgetsScreen },
  { path: 'inbox', label: 'Inbox', component: InboxScreen },
  { path: 'conversations', label: 'Conversations', component: ConversationsScreen },
  { path: 'content-gaps', label: 'Content gaps', component: ContentGapsScreen },
  { path: 'keys', label: 'API keys', component: KeysScreen },
  { path: 'console', label: 'API console', component: ConsoleScreen },
  { path: 'import', label: 'Import', component: ImportScreen },
  { path: 'sources', label: 'Websites', component: SourcesScreen },
  // Its chart library is most of the dashboard's code: loaded when the screen is first opened.
  { path: 'usage', label: 'Usage', component: lazy(() => import('./usage/usage.tsx').then((m) => ({ default: m.UsageScreen }))) },
  { path: 'settings', label: 'Settings', component: SettingsScreen },
];
