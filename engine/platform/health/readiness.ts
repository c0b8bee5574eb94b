/** A named probe for GET /ready: null when healthy, the reason otherwise. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<string | null>;
}
