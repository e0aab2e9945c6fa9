package dev.tickwheel.time;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.parser.CronParser;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses a Quartz cron expression (with seconds, optional year) with cron-utils and, when cron-utils rejects
 * it, finds the field at fault and says what is wrong with it in words a user can act on:
 * {@code "cron field 'day-of-week': 8 is out of range 1-7"} rather than
 * {@code "Failed to parse cron expression. Value 8 not in range [1, 7]"}.
 *
 * <pre>
 * How the field is found: cron-utils reports the bad value but not the field. Each field is re-parsed on its
 * own inside an expression that is otherwise known good ("0 0 0 ? * *", with '?' moved to day-of-week when
 * day-of-month is probed); the first probe that fails names the field and carries the reason. If every field
 * passes alone, the fault is between fields: Quartz needs exactly one of day-of-month and day-of-week to be '?'.
 * </pre>
 *
 * <p>Stateless; thread-safe (cron-utils' parser holds only final, immutable state).
 *
 * <p>Caveats: messages for rare constructs (e.g. {@code 1#9}) fall back to cron-utils' own wording, quoted.
 */
final class CronSyntax {

    /** Quartz field names, in order. */
    static final List<String> FIELD_NAMES =
            List.of("second", "minute", "hour", "day-of-month", "month", "day-of-week", "year");

    private static final int DAY_OF_MONTH = 3;
    private static final int DAY_OF_WEEK = 5;
    private static final String[] KNOWN_GOOD = {"0", "0", "0", "?", "*", "*", "*"};

    private static final CronParser PARSER =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

    private static final String CRON_UTILS_PREFIX = "Failed to parse cron expression. ";
    private static final Pattern VALUE_OUT_OF_RANGE =
            Pattern.compile("Value (\\S+) not in range \\[(-?\\d+), (-?\\d+)]");
    private static final Pattern STEP_OUT_OF_RANGE =
            Pattern.compile("Period (\\S+) not in range \\[(-?\\d+), (-?\\d+)]");
    private static final Pattern INVALID_CHARS =
            Pattern.compile("Invalid chars in expression! Expression: (\\S+) Invalid chars: (\\S+)");

    private CronSyntax() {
    }

    /** Trims the expression and collapses runs of whitespace to one space. */
    static String normalize(String expression) {
        return String.join(" ", expression.trim().split("\\s+"));
    }

    /**
     * Parses a normalized, non-blank expression.
     *
     * @throws InvalidTimeExpressionException (field {@code expression}) naming the cron field at fault
     */
    static Cron parse(String expression) {
        String[] tokens = expression.split(" ");
        if (tokens.length != 6 && tokens.length != 7) {
            throw invalid("cron expression must have 6 or 7 fields (second minute hour day-of-month month"
                    + " day-of-week [year]), got " + tokens.length + ": '" + expression + "'", null);
        }
        try {
            return tryParse(expression);
        } catch (RuntimeException failure) {
            throw diagnose(expression, tokens, failure);
        }
    }

    private static Cron tryParse(String expression) {
        Cron cron = PARSER.parse(expression);
        cron.validate();
        return cron;
    }

    private static InvalidTimeExpressionException diagnose(String expression, String[] tokens, RuntimeException whole) {
        for (int field = 0; field < tokens.length; field++) {
            String[] probe = probeFor(tokens.length, field, tokens[field]);
            if (probe == null) {
                continue;
            }
            try {
                tryParse(String.join(" ", probe));
            } catch (RuntimeException failure) {
                return invalid(describeField(field, tokens[field], failure.getMessage()), failure);
            }
        }
        boolean domQuestion = "?".equals(tokens[DAY_OF_MONTH]);
        boolean dowQuestion = "?".equals(tokens[DAY_OF_WEEK]);
        if (domQuestion == dowQuestion) {
            return invalid("cron fields 'day-of-month' and 'day-of-week': exactly one of them must be '?', got '"
                    + tokens[DAY_OF_MONTH] + "' and '" + tokens[DAY_OF_WEEK] + "'", whole);
        }
        return invalid("cron expression '" + expression + "' is invalid: " + stripPrefix(whole.getMessage()), whole);
    }

    /** A known-good expression with one field replaced, or null if that field cannot be probed alone ('?'). */
    private static String[] probeFor(int fieldCount, int field, String token) {
        String[] probe = Arrays.copyOf(KNOWN_GOOD, fieldCount);
        if (field == DAY_OF_MONTH) {
            if ("?".equals(token)) {
                return null;
            }
            probe[DAY_OF_WEEK] = "?";
        } else if (field == DAY_OF_WEEK && "?".equals(token)) {
            return null;
        }
        probe[field] = token;
        return probe;
    }

    private static String describeField(int field, String token, String cronUtilsMessage) {
        String prefix = "cron field '" + FIELD_NAMES.get(field) + "': ";
        String reason = stripPrefix(cronUtilsMessage);
        Matcher value = VALUE_OUT_OF_RANGE.matcher(reason);
        if (value.find()) {
            return prefix + value.group(1) + " is out of range " + value.group(2) + "-" + value.group(3);
        }
        Matcher step = STEP_OUT_OF_RANGE.matcher(reason);
        if (step.find()) {
            return prefix + "step " + step.group(1) + " in '" + token + "' is out of range 1-" + step.group(3);
        }
        Matcher chars = INVALID_CHARS.matcher(reason);
        if (chars.find()) {
            return prefix + "'" + token + "' contains an unknown value '" + chars.group(2)
                    + "' (expected numbers, names like MON or JAN, and * ? , - / L W #)";
        }
        return prefix + "'" + token + "' is invalid (" + reason + ")";
    }

    private static String stripPrefix(String message) {
        if (message == null) {
            return "no detail";
        }
        return message.startsWith(CRON_UTILS_PREFIX) ? message.substring(CRON_UTILS_PREFIX.length()) : message;
    }

    private static InvalidTimeExpressionException invalid(String message, Throwable cause) {
        return new InvalidTimeExpressionException(ScheduleSpec.FIELD_EXPRESSION, message, cause);
    }
}
