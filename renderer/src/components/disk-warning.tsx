import { useEffect } from 'react';
import { getDiskCondition } from '../api/settings.ts';
import { useLoad } from './ui.tsx';
import { formatBytes } from '../format.ts';

/** Often enough that a full disk shows within seconds of pushes being refused. */
const DISK_CHECK_MS = 15_000;

/**
 * A full disk under the data folder, shown to everyone on every screen: pushes are being refused
 * and processing waits, which no screen would otherwise explain.
 */
export function DiskWarning() {
  const { data, reload } = useLoad((signal) => getDiskCondition(signal), []);
  useEffect(() => {
    const timer = setInterval(reload, DISK_CHECK_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (!data?.full) return null;
  return (
    <p className="error" role="alert">
      {data.message}
      {data.freeBytes !== null ? ` Free now: ${formatBytes(data.freeBytes)}.` : ''}
    </p>
  );
}
