import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com' })
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  email: string;

  @ApiProperty({ example: 'secret' })
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password: string;
}
