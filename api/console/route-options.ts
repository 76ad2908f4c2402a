import type { Services } from "../services.ts";
import type { FlashStore } from "./flash.ts";

/** What every console route group is registered with. */
export interface ConsoleRouteOptions {
  services: Services;
  flash: FlashStore;
}
