package dev.tickwheel.time;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The messages a user sees for a bad cron, one per kind of mistake. */
class CronSyntaxErrorTest {

    private static InvalidTimeExpressionException parseFailure(String expression) {
        return assertThrows(InvalidTimeExpressionException.class,
                () -> CronSchedule.parse(expression, ZoneOffset.UTC));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            0 60 * * * ?        | cron field 'minute': 60 is out of range 0-59
            0 5-70 * * * ?      | cron field 'minute': 70 is out of range 0-59
            61 * * * * ?        | cron field 'second': 61 is out of range 0-59
            0 0 24 * * ?        | cron field 'hour': 24 is out of range 0-23
            0 0 0 32 * ?        | cron field 'day-of-month': 32 is out of range 1-31
            0 0 0 * 13 ?        | cron field 'month': 13 is out of range 1-12
            0 0 0 ? * 8         | cron field 'day-of-week': 8 is out of range 1-7
            0 0 0 ? * 0         | cron field 'day-of-week': 0 is out of range 1-7
            0 0 0 * * ? 2200    | cron field 'year': 2200 is out of range 1970-2099
            */0 * * * * ?       | cron field 'second': step 0 in '*/0' is out of range 1-59
            0 0/70 * * * ?      | cron field 'minute': step 70 in '0/70' is out of range 1-59
            """)
    void parse_valueOutOfRange_namesFieldAndRange(String expression, String message) {
        InvalidTimeExpressionException failure = parseFailure(expression);

        assertEquals(message, failure.getMessage());
        assertEquals("expression", failure.field());
    }

    @Test
    void parse_garbageToken_namesFieldAndToken() {
        assertEquals("cron field 'second': 'foo' contains an unknown value 'FOO'"
                        + " (expected numbers, names like MON or JAN, and * ? , - / L W #)",
                parseFailure("foo * * * * ?").getMessage());
    }

    @Test
    void parse_unknownDayNameInRange_namesDayOfWeek() {
        assertEquals("cron field 'day-of-week': 'MON-XYZ' contains an unknown value 'XYZ'"
                        + " (expected numbers, names like MON or JAN, and * ? , - / L W #)",
                parseFailure("0 0 0 ? * MON-XYZ").getMessage());
    }

    @Test
    void parse_threeFields_saysHowManyAreExpected() {
        assertEquals("cron expression must have 6 or 7 fields (second minute hour day-of-month month"
                + " day-of-week [year]), got 3: '* * *'", parseFailure("* * *").getMessage());
    }

    @Test
    void parse_unixStyleFiveFields_saysHowManyAreExpected() {
        assertEquals("cron expression must have 6 or 7 fields (second minute hour day-of-month month"
                + " day-of-week [year]), got 5: '*/5 * * * *'", parseFailure("*/5 * * * *").getMessage());
    }

    @Test
    void parse_bothDayFieldsSet_saysExactlyOneMustBeQuestionMark() {
        assertEquals("cron fields 'day-of-month' and 'day-of-week': exactly one of them must be '?', got '*' and '*'",
                parseFailure("0 0 0 * * *").getMessage());
    }

    @Test
    void parse_bothDayFieldsQuestionMark_saysExactlyOneMustBeQuestionMark() {
        assertEquals("cron fields 'day-of-month' and 'day-of-week': exactly one of them must be '?', got '?' and '?'",
                parseFailure("0 0 0 ? * ?").getMessage());
    }

    @Test
    void parse_blankOrNull_saysExpressionIsRequired() {
        assertEquals("expression is required for a CRON schedule and must not be blank", parseFailure("   ").getMessage());
        assertEquals("expression is required for a CRON schedule and must not be blank", parseFailure(null).getMessage());
    }

    @Test
    void parse_february30_saysItNeverFires() {
        assertEquals("cron expression '0 0 0 30 2 ?' never fires: no date between 1970 and 2099 matches it",
                parseFailure("0 0 0 30 2 ?").getMessage());
    }

    @Test
    void parse_sixthMonday_saysItNeverFires() {
        assertEquals("cron expression '0 0 0 ? * MON#6' never fires: no date between 1970 and 2099 matches it",
                parseFailure("0 0 0 ? * MON#6").getMessage());
    }

    @Test
    void parse_trailingComma_namesFieldAndKeepsCronUtilsReason() {
        InvalidTimeExpressionException failure = parseFailure("0 0 0 ? * 1,");

        assertEquals("cron field 'day-of-week': '1,' is invalid (Invalid field value! Trailing commas not permitted! '1,')",
                failure.getMessage());
    }
}
