/**
 * A list filter of the dashboard's screens: "All …" or one of the things loaded (widgets, knowledge
 * bases, keys), by id.
 */
export function FilterSelect<T extends { id: string }>({
  id,
  label,
  allLabel,
  value,
  onChange,
  options,
  name,
}: {
  id: string;
  label: string;
  allLabel: string;
  value: string;
  onChange: (value: string) => void;
  options: T[] | undefined;
  /** What an option shows; its id when absent. */
  name?: (option: T) => string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{allLabel}</option>
        {(options ?? []).map((option) => (
          <option key={option.id} value={option.id}>
            {name ? name(option) : option.id}
          </option>
        ))}
      </select>
    </div>
  );
}
