/**
 * Posts or messages of other daemons of the fleet held here, by where they
 * came from: `<project>\n<origin>` → their id here. A daemon numbers what
 * it holds itself; an origin names a post or message across the fleet
 * (`<daemon>/<history>/<marker><id>` of the daemon it was made on).
 */
export class FleetOrigins {
  private readonly ids = new Map<string, number>();

  /** `marker`: what tells messages' origins from posts' (`m`, or '' for posts). */
  constructor(private readonly marker: string) {}

  has(projectId: string, origin: string): boolean {
    return this.ids.has(`${projectId}\n${origin}`);
  }

  set(projectId: string, origin: string, id: number): void {
    this.ids.set(`${projectId}\n${origin}`, id);
  }

  delete(projectId: string, origin: string): void {
    this.ids.delete(`${projectId}\n${origin}`);
  }

  /** The origin of item `id` made on this daemon (`self`: `<daemon>/<history>`). */
  own(self: string, id: number): string {
    return `${self}/${this.marker}${id}`;
  }

  /** The id here of what `ref` names (made here, or held from elsewhere); 0 for none or unknown. */
  resolve(projectId: string, ref: string, self: string): number {
    if (ref === '') return 0;
    const mine = `${self}/${this.marker}`;
    if (ref.startsWith(mine)) return Number(ref.slice(mine.length)) || 0;
    return this.ids.get(`${projectId}\n${ref}`) ?? 0;
  }
}
