import { usePolled } from './live';

/** The projects this console shows, its own first (one: no picker is drawn). */
export function useProjects(): string[] {
  return usePolled<{ projects: string[] }>('/api/console', 60_000).data?.projects ?? [];
}

/**
 * A choice of project, drawn only when the console shows more than one;
 * `any` adds "any" (the value '').
 */
export function ProjectPicker(props: {
  id: string;
  projects: string[];
  value: string;
  onChange: (project: string) => void;
  any?: boolean;
}) {
  if (props.projects.length < 2) return null;
  return (
    <>
      <label for={props.id}>Project</label>
      <select
        id={props.id}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.any ? <option value="">any</option> : null}
        {props.projects.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
    </>
  );
}
