#!/usr/bin/perl
# A Bohnanza bot in Perl, written from docs/protocol.md alone: one JSON object per line in,
# one per line out. It always takes the first legal option the referee lists (for every
# decision kind the first option is a planting, ending trading or passing), so it never trades.
#
#   arena play --unsafe "exec:perl docs/examples/first_option_bot.pl" greedy greedy
use strict;
use warnings;
use JSON::PP;

$| = 1;    # answer at once: the referee waits for each line
my $json = JSON::PP->new->canonical;
while (my $line = <STDIN>) {
    my $message = $json->decode($line);
    my $type = $message->{type};
    if ($type eq 'hello') {
        print $json->encode({type => 'ready'}), "\n";
    } elsif ($type eq 'decide') {
        my ($choice) = grep { $_->{type} ne 'harvest' && $_->{type} ne 'buy_field' } @{ $message->{options} };
        $choice //= $message->{options}[0];
        print $json->encode({id => $message->{id}, action => $choice}), "\n";
    }
    # 'end' needs no answer; another 'hello' may follow
}
