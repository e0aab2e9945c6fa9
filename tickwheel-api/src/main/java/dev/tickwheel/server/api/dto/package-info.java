/**
 * The JSON shapes of the HTTP API, kept apart from the domain records so that the wire format can stay stable while
 * the engine changes.
 *
 * <p><b>IDs are JSON strings</b> in every answer ({@code "id": "1234567890123456789"}): Tickwheel's IDs are 64-bit
 * Snowflake numbers, and a JavaScript client (the dashboard, any browser or Node.js caller) parses JSON numbers as
 * IEEE doubles, which hold integers exactly only up to 2^53, so a numeric ID would silently change its last digits.
 * No request body carries an ID: requests name IDs in the path or query string, as decimal integers. Times are
 * ISO-8601 instants in UTC ({@code "2025-01-31T12:00:00Z"}).
 */
package dev.tickwheel.server.api.dto;
