/** MemoryLinkUses against the answer-link use conformance suite (one process: no second handle). */
import { MemoryLinkUses } from "../../../../hub/storage/memory/index.ts";
import { describeLinkUsesConformance } from "../conformance/link-uses.ts";

describeLinkUsesConformance("MemoryLinkUses", async () => ({ uses: new MemoryLinkUses(), dispose: async () => {} }), false);
