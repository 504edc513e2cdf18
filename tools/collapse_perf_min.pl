#!/usr/bin/perl
# A minimal collapser of perf script text into folded stacks: reads each
# record's header and frame lines, drops symbol offsets, joins root-first,
# counts in a hash, prints sorted. A lower bound on what a full collapser
# (with its inline, JIT and kernel rules) costs per line.
use strict;
use warnings;

my (%count, $comm, @frames);
sub flush_record {
	if (defined $comm) {
		$count{ join(';', $comm, reverse @frames) }++;
	}
	undef $comm;
	@frames = ();
}
while (my $line = <STDIN>) {
	chomp $line;
	if ($line eq '') {
		flush_record();
	} elsif ($line =~ /^\s+[0-9a-f]+\s+(.+?)\s+\((.*)\)$/) {
		my $sym = $1;
		$sym =~ s/\+0x[0-9a-f]+$//;
		push @frames, $sym;
	} elsif ($line =~ /^(\S.*?)\s+\d+(?:\/\d+)?\s/) {
		$comm = $1;
	}
}
flush_record();
print "$_ $count{$_}\n" for sort keys %count;
