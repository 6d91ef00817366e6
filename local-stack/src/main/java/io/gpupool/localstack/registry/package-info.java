/**
 * A Schema-Registry-compatible server for the local stack and the tests: the Confluent REST subset
 * that {@code io.gpupool.registry.SchemaRegistryClient} uses, over the JDK's HTTP server.
 *
 * <ul>
 *   <li>Routes: POST /subjects/{s}/versions, POST /subjects/{s}, GET /subjects, GET /subjects/{s}/versions,
 *       GET /subjects/{s}/versions/{v|latest}[/schema], GET /schemas/ids/{id},
 *       POST /compatibility/subjects/{s}/versions/{v|latest}[?verbose=true], GET/PUT /config,
 *       GET/PUT/DELETE /config/{s}[?defaultToGlobal=true].</li>
 *   <li>Compatibility: NONE, BACKWARD (default), FORWARD, FULL and their *_TRANSITIVE variants, checked
 *       with Avro's SchemaCompatibility; refusals are HTTP 409 with error_code 409 and the reasons.</li>
 *   <li>Errors as Confluent sends them: 40401 subject, 40402 version, 40403 schema not found, 40408 no
 *       subject-level config, 42201 invalid schema, 42202 invalid version, 42203 invalid level.</li>
 *   <li>Durability: every change is written (acks=all) to a compacted one-partition topic, {@code _schemas}
 *       by default, in Confluent's record layout, before it becomes visible; the topic is read back on start,
 *       so ids and versions survive restarts. One registry writes to a topic at a time.</li>
 *   <li>Only AVRO schemas; no schema references, no deletes, no modes or contexts.</li>
 * </ul>
 */
package io.gpupool.localstack.registry;
