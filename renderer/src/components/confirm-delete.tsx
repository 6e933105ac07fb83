import type { ReactNode } from 'react';
import { Confirm } from './ui.tsx';

/**
 * The confirm-and-delete step of a list: `target` is the row whose delete button was pressed (null
 * when none), asked about in a dialog. Confirming runs `remove` with it (the API call and what the
 * list does after) and then closes; a refusal stays in the dialog, in the contract's words.
 */
export function ConfirmDelete<T>({
  target,
  title,
  confirmLabel,
  message,
  remove,
  onClose,
}: {
  target: T | null;
  title: string;
  confirmLabel: string;
  message: (target: T) => ReactNode;
  remove: (target: T) => Promise<void>;
  onClose: () => void;
}) {
  return (
    <Confirm
      title={title}
      open={target !== null}
      confirmLabel={confirmLabel}
      message={target === null ? null : message(target)}
      onCancel={onClose}
      onConfirm={async () => {
        await remove(target!);
        onClose();
      }}
    />
  );
}
