package io.gpupool.scheduler.core;

/** A victim's part on one node: what evicting the victim frees there. */
record VictimPart(Victim v, PlacementPart a) {
}
