# SPDX-License-Identifier: MIT
# Turn a text file into a C string constant, for the reader to inline
# flamegraph.js and flamegraph.css into its SVGs:
#   awk -v name=flamegraph_js -v src=src/flamegraph.js -f src/embed.awk \
#       src/flamegraph.js > build/flamegraph_js.h
# Every line gets its newline back; \ " and ? are escaped (no trigraphs).
BEGIN {
	if (name == "")
		name = "embedded"
	printf "/* generated from %s by src/embed.awk: do not edit */\n", src
	printf "static const char %s[] =\n", name
	n = 0
}
# char by char: gsub's replacement escapes differ between awks
{
	out = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\\" || c == "\"" || c == "?")
			out = out "\\" c
		else if (c == "\t")
			out = out "\\t"
		else
			out = out c
	}
	printf "\t\"%s\\n\"\n", out
	n++
}
END {
	if (n == 0)
		printf "\t\"\"\n"
	print ";"
}
