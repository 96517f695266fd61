#include "trace/TerminalText.h"

#include <gtest/gtest.h>

#include <string>

namespace ps::trace {
namespace {

TEST(TerminalText, KeepsPrintableTextAndUtf8) {
  EXPECT_EQ(terminalSafe("1f1b p=4 m=8"), "1f1b p=4 m=8");
  EXPECT_EQ(terminalSafe("stage \xC3\xA9t\xC3\xA9 \xE2\x86\x92 GPU"),
            "stage \xC3\xA9t\xC3\xA9 \xE2\x86\x92 GPU");
}

TEST(TerminalText, EscapesControlsSoTheyCannotDriveTheTerminal) {
  EXPECT_EQ(terminalSafe("\x1b[2J\x1b]0;pwned\x07run"), "\\x1b[2J\\x1b]0;pwned\\x07run");
  EXPECT_EQ(terminalSafe("a\rb\nc\td\\e\x7f"), "a\\rb\\nc\\td\\\\e\\x7f");
  EXPECT_EQ(terminalSafe("csi\xC2\x9B"
                         "31m"),
            "csi\\u009b31m");  // C1 CSI, UTF-8 encoded
}

TEST(TerminalText, EscapesInvalidUtf8BytesOneByOne) {
  EXPECT_EQ(terminalSafe("x\xFFy\xC3"), "x\\xffy\\xc3");       // bad lead, truncated sequence
  EXPECT_EQ(terminalSafe("\xC0\xAF"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(terminalSafe("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // surrogate
}

TEST(TerminalText, CapsLongTextAndCountsWhatWasLeftOut) {
  const std::string label(100000, 'a');
  const std::string shown = terminalSafe(label, 10);
  EXPECT_EQ(shown, "aaaaaaaaaa\xE2\x80\xA6 (+99990 chars)");
  EXPECT_EQ(terminalSafe("\xE2\x86\x92\xE2\x86\x92\xE2\x86\x92", 2),
            "\xE2\x86\x92\xE2\x86\x92\xE2\x80\xA6 (+1 chars)");
  EXPECT_EQ(terminalSafe(std::string(kTerminalTextCap, 'b')), std::string(kTerminalTextCap, 'b'));
}

}  // namespace
}  // namespace ps::trace
