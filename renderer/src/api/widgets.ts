import type { AdminWidget, AdminWidgetList } from '../../../common/contract/admin.ts';
import type { WidgetInput, WidgetUpdate } from '../../../common/contract/widget.ts';
import { del, get, patch, post, seg } from './client.ts';

/** The visitor chat widgets: `/admin/api/widgets`. */

export const listWidgets = (signal?: AbortSignal) => get<AdminWidgetList>('/widgets', signal);
export const getWidget = (id: string, signal?: AbortSignal) => get<AdminWidget>(`/widgets/${seg(id)}`, signal);
export const createWidget = (input: WidgetInput) => post<AdminWidget>('/widgets', input);
export const updateWidget = (id: string, update: WidgetUpdate) => patch<AdminWidget>(`/widgets/${seg(id)}`, update);
export const deleteWidget = (id: string) => del<void>(`/widgets/${seg(id)}`);
